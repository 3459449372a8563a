"""Numpy references for MediaPipe's landmark custom ops (version 2), written
from MediaPipe's definitions (mediapipe/util/tflite/operations:
landmarks_to_transform_matrix.cc, transform_tensor_bilinear.cc,
transform_landmarks.cc; their options as TFLite's GPU delegate parses them)
in float64. LiteRT has none of these ops; test_mediapipe_ops.py checks these
references against hand-derived values, and test_corpus.py uses them on
face_landmark_with_attention's own tensors.
"""

import numpy as np


def translation(x, y):
    m = np.eye(4)
    m[0, 3], m[1, 3] = x, y
    return m


def rotation(angle):
    m = np.eye(4)
    c, s = np.cos(angle), np.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def scaling(x, y):
    return np.diag([x, y, 1.0, 1.0])


def landmarks_to_transform_matrix(landmarks, options):
    """Landmarks2TransformMatrix: the [1, 4, 4] matrix from landmarks
    [1, N, 3] and the op's options (a dict of its FlexBuffers keys).

    MediaPipe: rotation = target - atan2(right.y - left.y, right.x - left.x);
    the subset's points (subset_idxs read as pairs, an odd last entry
    paired with itself) are rotated by `rotation`, their bounding box gives
    the crop's size and (rotated back) its centre; the matrix is
    T(centre) . R(-rotation) . S(scale_x * width / output_width,
    scale_y * height / output_height) . T(-output_width / 2,
    -output_height / 2)."""
    p = np.asarray(landmarks, np.float64).reshape(-1, 3)[:, :2]
    left = p[options["left_rotation_idx"]]
    right = p[options["right_rotation_idx"]]
    rot = options.get("target_rotation_radians", 0.0) - np.arctan2(
        right[1] - left[1], right[0] - left[0])
    idx = list(options["subset_idxs"])
    pairs = [(idx[2 * i], idx[2 * i + 1]) for i in range(len(idx) // 2)]
    if len(idx) % 2:
        pairs.append((idx[-1], idx[-1]))
    points = np.array([p[k] for pair in pairs for k in pair])
    homogeneous = np.c_[points, np.zeros(len(points)), np.ones(len(points))]
    rotated = (rotation(rot) @ homogeneous.T).T[:, :2]
    lo, hi = rotated.min(axis=0), rotated.max(axis=0)
    width, height = hi - lo
    centre = rotation(-rot) @ np.r_[(lo + hi) / 2, 0.0, 1.0]
    out_w, out_h = options["output_width"], options["output_height"]
    m = (translation(centre[0], centre[1]) @ rotation(-rot) @
         scaling(options["scale_x"] * width / out_w,
                 options["scale_y"] * height / out_h) @
         translation(-out_w / 2.0, -out_h / 2.0))
    return m[None].astype(np.float32)


def transform_tensor_bilinear(x, matrix, out_h, out_w):
    """TransformTensorBilinear: x [1, H, W, C] sampled at the matrix applied
    to each output pixel's centre, (M (col + 0.5, row + 0.5, 0, 1)) - 0.5
    (MediaPipe's align-corners correction S . M . A), bilinearly; a point
    outside [0, W - 1] x [0, H - 1] gives 0, a neighbour past the edge
    counts as 0."""
    x = np.asarray(x, np.float64)[0]
    h, w, c = x.shape
    m = np.asarray(matrix, np.float64).reshape(4, 4)
    rows, cols = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    points = np.stack([cols + 0.5, rows + 0.5, np.zeros_like(cols),
                       np.ones_like(cols)], axis=-1) @ m.T - 0.5
    px, py = points[..., 0], points[..., 1]
    inside = (px >= 0) & (px <= w - 1) & (py >= 0) & (py <= h - 1)
    px, py = np.where(inside, px, 0), np.where(inside, py, 0)
    x0, y0 = np.floor(px).astype(int), np.floor(py).astype(int)
    fx, fy = (px - x0)[..., None], (py - y0)[..., None]
    padded = np.zeros((h + 1, w + 1, c))
    padded[:h, :w] = x
    upper = (1 - fx) * padded[y0, x0] + fx * padded[y0, x0 + 1]
    lower = (1 - fx) * padded[y0 + 1, x0] + fx * padded[y0 + 1, x0 + 1]
    out = np.where(inside[..., None], (1 - fy) * upper + fy * lower, 0.0)
    return out[None].astype(np.float32)


def transform_landmarks(landmarks, matrix):
    """TransformLandmarks: each landmark's (x, y) through the matrix's first
    two rows as (x, y, 0, 1); z (a third value) unchanged."""
    p = np.asarray(landmarks, np.float64)
    m = np.asarray(matrix, np.float64).reshape(4, 4)
    out = p.copy()
    xy1 = np.stack([p[..., 0], p[..., 1], np.zeros_like(p[..., 0]),
                    np.ones_like(p[..., 0])], axis=-1)
    out[..., 0] = xy1 @ m[0]
    out[..., 1] = xy1 @ m[1]
    return out.astype(np.float32)
