"""Keeps docs/builtin_ops.md true against the op manifest, ops/ops.def.

The page lists every op TFLite 2.17's BuiltinOpResolver registers and says
whether litegpu has a CPU kernel (the manifest's CPU(min, max) column) and
whether the GPU delegate can claim it (the manifest's GPU column). These
tests parse both files and check:

* every manifest row with a CPU range has a row on the page with the same
  range, and every LG_OP row is on the page at all;
* every row on the page with a CPU range has that manifest row;
* every "no" row gives a reason;
* the GPU column matches the manifest (builtins, TFLite's custom ops and
  the MediaPipe custom ops alike);
* the counts the page states match its tables;
* the codes match include/tensorflow/lite/builtin_ops.h, each CPU range
  covers the TFLite column's, and the rows are sorted and unique.

Each check is a function returning a list of problems, and the parsers take
the file's path, so the mutation tests at the end can show that each check
fails on an edited copy of the page (or of the manifest) in a temp dir. No
build is needed: only the two text files and two headers are read.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "builtin_ops.md"
MANIFEST = ROOT / "ops" / "ops.def"
BUILTIN_OPS_H = ROOT / "include" / "tensorflow" / "lite" / "builtin_ops.h"
MEDIAPIPE_H = ROOT / "include" / "litegpu" / "mediapipe_ops.h"

Range = Tuple[int, int]

# ---- The manifest ---------------------------------------------------------


@dataclass(frozen=True)
class ManifestRow:
    name: str            # schema name, e.g. CONV_2D
    code: str            # LG_OP's Code (kTfLiteBuiltin<Code>); "" for custom
    custom_name: str     # LG_CUSTOM_OP's "CustomName"; "" for builtins
    family: str
    cpu: Optional[Range]  # None for NO_CPU
    gpu: bool             # False for NO_GPU


def strip_c_comments(text: str) -> str:
    """Removes /* */ and // comments, leaving string literals alone (a
    comment becomes one space, so tokens on either side stay apart)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated comment in the manifest")
            out.append(" ")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _macro_args(text: str, start: int) -> Tuple[List[str], int]:
    """The top-level comma-separated arguments of the call whose '(' is at
    text[start], and the index after its ')'. Rows may span lines."""
    depth, args, cur = 0, [], []
    i = start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return [" ".join(a.split()) for a in args], i + 1
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        elif c == '"':
            j = text.index('"', i + 1)
            cur.append(text[i:j + 1])
            i = j
        else:
            cur.append(c)
        i += 1
    raise ValueError("unterminated manifest row")


_CPU_RE = re.compile(r"^CPU\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
_GPU_RE = re.compile(r"^GPU\(.*\)$")


def parse_manifest(path: Path) -> Dict[str, ManifestRow]:
    """Every LG_OP and LG_CUSTOM_OP row of the manifest, by NAME."""
    text = strip_c_comments(Path(path).read_text(encoding="utf-8"))
    rows: Dict[str, ManifestRow] = {}
    for m in re.finditer(r"\b(LG_OP|LG_CUSTOM_OP)\s*\(", text):
        args, _ = _macro_args(text, m.end() - 1)
        if len(args) != 5:
            raise ValueError(f"{m.group(1)} row with {len(args)} fields: "
                             f"{args}")
        name, second, family, cpu, gpu = args
        custom = m.group(1) == "LG_CUSTOM_OP"
        if custom and not re.fullmatch(r'"[^"]+"', second):
            raise ValueError(f"{name}: custom name {second} is not a string")
        cm = _CPU_RE.match(cpu)
        if cm is None and cpu != "NO_CPU":
            raise ValueError(f"{name}: CPU field {cpu!r}")
        if gpu != "NO_GPU" and not _GPU_RE.match(gpu):
            raise ValueError(f"{name}: GPU field {gpu!r}")
        if name in rows:
            raise ValueError(f"{name}: two manifest rows")
        rows[name] = ManifestRow(
            name=name,
            code="" if custom else second,
            custom_name=second.strip('"') if custom else "",
            family=family,
            cpu=(int(cm.group(1)), int(cm.group(2))) if cm else None,
            gpu=gpu != "NO_GPU")
    return rows


def parse_builtin_codes(path: Path = BUILTIN_OPS_H) -> Dict[str, int]:
    """kTfLiteBuiltin<Code> = N from builtin_ops.h, by Code."""
    text = Path(path).read_text(encoding="utf-8")
    return {k: int(v) for k, v in
            re.findall(r"\bkTfLiteBuiltin(\w+)\s*=\s*(\d+)", text)}


def code_for(name: str, manifest: Dict[str, ManifestRow],
             codes: Dict[str, int]) -> Optional[int]:
    """The builtin code of schema name `name`: the manifest's Code where
    it has a row, else builtin_ops.h's name without underscores."""
    row = manifest.get(name)
    if row is not None and row.code:
        return codes.get(row.code)
    wanted = name.replace("_", "").lower()
    hits = [v for k, v in codes.items() if k.lower() == wanted]
    return hits[0] if len(hits) == 1 else None


# ---- The page -------------------------------------------------------------

BUILTIN_SECTION = "Builtin ops"
CUSTOM_SECTION = "Custom ops"
EXTRA_SECTION = "Ops litegpu has that BuiltinOpResolver does not register"
COUNTS_SECTION = "Counts"


@dataclass
class DocRow:
    op: str
    code: str
    tflite: Optional[Range]
    cpu: Optional[Range]   # None for "no"
    cpu_text: str
    gpu: str               # "yes" / "no" as written
    notes: str
    manifest_row: str = ""  # extras table only


@dataclass
class Doc:
    text: str
    builtins: List[DocRow]
    customs: List[DocRow]
    extras: List[DocRow]
    counts: Dict[str, str]


_RANGE_RE = re.compile(r"^(\d+)(?:\s*[–-]\s*(\d+))?\s*(?:\\?\*)?$")


def parse_range(cell: str) -> Optional[Range]:
    """'1–5', '1-5', '3' or '1–13\\*' to (min, max); 'no' to None."""
    cell = cell.strip()
    if cell == "no":
        return None
    m = _RANGE_RE.match(cell)
    if m is None:
        raise ValueError(f"not a version range: {cell!r}")
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) else lo
    if hi < lo:
        raise ValueError(f"empty version range: {cell!r}")
    return lo, hi


def split_sections(text: str) -> Dict[str, str]:
    """The page's '## ' sections, by heading."""
    sections: Dict[str, str] = {}
    heading = None
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            heading = line[3:].strip()
            if heading in sections:
                raise ValueError(f"two sections named {heading!r}")
            sections[heading] = ""
        elif heading is not None:
            sections[heading] += line
    return sections


def parse_table(section: str) -> List[Dict[str, str]]:
    """The first markdown table of a section: one dict per body row."""
    lines = [ln.strip() for ln in section.splitlines()
             if ln.strip().startswith("|")]
    if len(lines) < 2:
        raise ValueError("no table")
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    header, sep, body = cells[0], cells[1], cells[2:]
    if not all(re.fullmatch(r":?-+:?", c) for c in sep):
        raise ValueError(f"not a table separator: {lines[1]}")
    rows = []
    for ln, row in zip(lines[2:], body):
        if len(row) != len(header):
            raise ValueError(f"{len(row)} cells, {len(header)} columns: {ln}")
        rows.append(dict(zip(header, row)))
    return rows


def _unquote(cell: str) -> str:
    return cell.strip().strip("`")


def _doc_rows(table: List[Dict[str, str]], op_col: str) -> List[DocRow]:
    rows = []
    for r in table:
        rows.append(DocRow(
            op=_unquote(r[op_col]),
            code=r.get("Code", "").strip(),
            tflite=parse_range(r["TFLite"]) if "TFLite" in r else None,
            cpu=(parse_range(r["litegpu CPU"])
                 if r["litegpu CPU"] != "opt-in" else None),
            cpu_text=r["litegpu CPU"].strip(),
            gpu=r["GPU"].strip(),
            notes=r["Notes"].strip(),
            manifest_row=_unquote(r.get("Manifest row", ""))))
    return rows


def parse_doc(path: Path) -> Doc:
    text = Path(path).read_text(encoding="utf-8")
    sections = split_sections(text)
    for name in (BUILTIN_SECTION, CUSTOM_SECTION, EXTRA_SECTION,
                 COUNTS_SECTION):
        if name not in sections:
            raise ValueError(f"the page has no section {name!r}")
    counts = {r["What"].strip(): r["Count"].strip()
              for r in parse_table(sections[COUNTS_SECTION])}
    return Doc(
        text=text,
        builtins=_doc_rows(parse_table(sections[BUILTIN_SECTION]), "Op"),
        customs=_doc_rows(parse_table(sections[CUSTOM_SECTION]), "Op"),
        extras=_doc_rows(parse_table(sections[EXTRA_SECTION]), "Custom op"),
        counts=counts)


# ---- The checks -----------------------------------------------------------


def _fmt(r: Optional[Range]) -> str:
    return "no" if r is None else f"{r[0]}–{r[1]}"


def check_manifest_rows_on_page(doc: Doc,
                                manifest: Dict[str, ManifestRow]) -> List[str]:
    """Every LG_OP row has a builtin row; every CPU range is the same on
    the page. A custom row with a CPU range (a kernel the default resolver
    finds by name) is a row of the custom-ops table with that range."""
    page = {r.op: r for r in doc.builtins}
    customs = {r.op: r for r in doc.customs}
    problems = []
    for row in manifest.values():
        if row.custom_name:
            if row.cpu is None:
                continue
            got = customs.get(row.custom_name)
            if got is None:
                problems.append(f"{row.custom_name}: a custom row with a CPU "
                                "range, not in the custom-ops table")
            elif got.cpu != row.cpu:
                problems.append(f"{row.custom_name}: the page says CPU "
                                f"{_fmt(got.cpu)}, the manifest "
                                f"{_fmt(row.cpu)}")
            continue
        got = page.get(row.name)
        if got is None:
            problems.append(f"{row.name}: in the manifest, not on the page")
        elif got.cpu != row.cpu:
            problems.append(f"{row.name}: the page says CPU {_fmt(got.cpu)}, "
                            f"the manifest {_fmt(row.cpu)}")
    return problems


def check_page_rows_in_manifest(doc: Doc,
                                manifest: Dict[str, ManifestRow]) -> List[str]:
    """Every row with a CPU range has that manifest LG_OP row (a custom
    op: that LG_CUSTOM_OP row)."""
    problems = []
    by_custom = {m.custom_name: m for m in manifest.values() if m.custom_name}
    for r in doc.builtins + doc.customs:
        if r.cpu is None:
            continue
        custom = r in doc.customs
        row = by_custom.get(r.op) if custom else manifest.get(r.op)
        if row is None or (not custom and row.custom_name):
            problems.append(f"{r.op}: CPU {_fmt(r.cpu)} on the page, but "
                            "the manifest has no "
                            f"{'LG_CUSTOM_OP' if custom else 'LG_OP'} row "
                            "for it")
        elif row.cpu != r.cpu:
            problems.append(f"{r.op}: the page says CPU {_fmt(r.cpu)}, the "
                            f"manifest {_fmt(row.cpu)}")
    return problems


def check_no_rows_have_reasons(doc: Doc) -> List[str]:
    problems = []
    for r in doc.builtins + doc.customs:
        if r.cpu is None and not re.search(r"\w", r.notes):
            problems.append(f"{r.op}: 'no' without a reason")
    return problems


def check_gpu_column(doc: Doc, manifest: Dict[str, ManifestRow]) -> List[str]:
    problems = []
    by_custom = {m.custom_name: m for m in manifest.values() if m.custom_name}

    def expect(op: str, written: str, row: Optional[ManifestRow]) -> None:
        want = "yes" if row is not None and row.gpu else "no"
        if written != want:
            problems.append(f"{op}: GPU {written!r} on the page, the "
                            f"manifest says {want!r}")

    for r in doc.builtins:
        row = manifest.get(r.op)
        expect(r.op, r.gpu, row if row is not None and not row.custom_name
               else None)
    for r in doc.customs:
        expect(r.op, r.gpu, by_custom.get(r.op))
    for r in doc.extras:
        expect(r.op, r.gpu, by_custom.get(r.op))
    return problems


def expected_counts(doc: Doc) -> Dict[str, int]:
    return {
        "Builtins TFLite 2.17 registers": len(doc.builtins),
        "Builtins with a litegpu CPU kernel":
            sum(r.cpu is not None for r in doc.builtins),
        "Builtins without one (**no**)":
            sum(r.cpu is None for r in doc.builtins),
        "Builtins the GPU delegate can claim":
            sum(r.gpu == "yes" for r in doc.builtins),
        "Custom ops TFLite 2.17 registers": len(doc.customs),
        "Custom ops with a litegpu CPU kernel":
            sum(r.cpu is not None for r in doc.customs),
        "Ops litegpu has that `BuiltinOpResolver` does not register":
            len(doc.extras),
    }


def check_counts(doc: Doc) -> List[str]:
    """The Counts table and the sentences that state counts."""
    want = expected_counts(doc)
    problems = []
    for label, n in want.items():
        got = doc.counts.get(label)
        if got is None:
            problems.append(f"Counts: no row {label!r}")
        elif got != str(n):
            problems.append(f"Counts: {label!r} says {got}, the tables {n}")
    for label in doc.counts:
        if label not in want:
            problems.append(f"Counts: unknown row {label!r}")
    flat = " ".join(doc.text.split())
    sentences = [
        (r"\*\*(\d+) of (\d+) builtins have CPU kernels\*\*",
         (want["Builtins with a litegpu CPU kernel"],
          want["Builtins TFLite 2.17 registers"])),
        (r"can claim (\d+) of them",
         (want["Builtins the GPU delegate can claim"],)),
        (r"the (\d+) builtins and the (\d+) custom ops",
         (want["Builtins TFLite 2.17 registers"],
          want["Custom ops TFLite 2.17 registers"])),
        (r"(\d+) of the (\d+) custom ops",
         (want["Custom ops with a litegpu CPU kernel"],
          want["Custom ops TFLite 2.17 registers"])),
    ]
    for pattern, numbers in sentences:
        m = re.search(pattern, flat)
        if m is None:
            problems.append(f"no sentence matching {pattern!r}")
        elif tuple(int(g) for g in m.groups()) != numbers:
            problems.append(f"{m.group(0)!r}: the tables give {numbers}")
    if (want["Custom ops with a litegpu CPU kernel"] != 0
            and re.search(r"None of the \d+ custom ops", flat)):
        problems.append("'None of the custom ops' but one has a CPU range")
    return problems


def check_codes(doc: Doc, manifest: Dict[str, ManifestRow],
                codes: Dict[str, int]) -> List[str]:
    problems = []
    for r in doc.builtins:
        want = code_for(r.op, manifest, codes)
        if want is None:
            problems.append(f"{r.op}: no kTfLiteBuiltin code for this name")
        elif r.code != str(want):
            problems.append(f"{r.op}: code {r.code} on the page, "
                            f"builtin_ops.h says {want}")
    for r in doc.customs:
        if r.code != "custom":
            problems.append(f"{r.op}: a custom op's code must be 'custom'")
    return problems


def check_cpu_covers_tflite(doc: Doc) -> List[str]:
    problems = []
    for r in doc.builtins + doc.customs:
        if r.tflite is None:
            problems.append(f"{r.op}: no TFLite range")
        elif r.cpu is not None and not (r.cpu[0] <= r.tflite[0]
                                        and r.tflite[1] <= r.cpu[1]):
            problems.append(f"{r.op}: CPU {_fmt(r.cpu)} does not cover "
                            f"TFLite's {_fmt(r.tflite)}")
    return problems


def check_sorted_unique(doc: Doc) -> List[str]:
    problems = []
    for what, rows in (("builtin", doc.builtins), ("custom", doc.customs),
                       ("extra", doc.extras)):
        names = [r.op for r in rows]
        if names != sorted(names):
            problems.append(f"the {what} table is not sorted by name")
        dups = {n for n in names if names.count(n) > 1}
        if dups:
            problems.append(f"the {what} table repeats {sorted(dups)}")
    return problems


def check_extras(doc: Doc, manifest: Dict[str, ManifestRow],
                 mediapipe_h: str) -> List[str]:
    """The ops litegpu has beyond BuiltinOpResolver: every LG_CUSTOM_OP row
    is listed with its manifest name; an opt-in CPU kernel is one
    litegpu_add_mediapipe_ops registers."""
    problems = []
    listed = {r.op: r for r in doc.extras}
    tflite_customs = {r.op for r in doc.customs}
    for row in manifest.values():
        if (row.custom_name and row.custom_name not in listed
                and row.custom_name not in tflite_customs):
            problems.append(f"{row.custom_name}: an LG_CUSTOM_OP row not "
                            "listed among the ops BuiltinOpResolver lacks")
    builtin_names = {r.op for r in doc.builtins}
    for r in doc.extras:
        row = manifest.get(r.manifest_row)
        if row is None or row.custom_name != r.op:
            problems.append(f"{r.op}: the manifest has no LG_CUSTOM_OP "
                            f"{r.manifest_row} with that custom name")
        if r.op in builtin_names:
            problems.append(f"{r.op}: in both the builtin table and the "
                            "extras")
        if r.cpu_text == "opt-in" and not re.search(
                rf"^\s*\*\s+{re.escape(r.op)}\b", mediapipe_h, re.M):
            problems.append(f"{r.op}: 'opt-in' CPU kernel, but "
                            "mediapipe_ops.h does not list it")
        elif r.cpu_text not in ("opt-in", "no"):
            problems.append(f"{r.op}: CPU {r.cpu_text!r} (expected opt-in "
                            "or no)")
        if not r.notes:
            problems.append(f"{r.op}: no notes")
    return problems


# ---- The tests on the real files -----------------------------------------


@pytest.fixture(scope="module")
def manifest():
    return parse_manifest(MANIFEST)


@pytest.fixture(scope="module")
def codes():
    return parse_builtin_codes(BUILTIN_OPS_H)


@pytest.fixture(scope="module")
def doc():
    return parse_doc(DOC)


def test_manifest_parser_finds_every_row(manifest):
    """As many rows as LG_OP( / LG_CUSTOM_OP( outside comments, and at
    least the ops this page was written against."""
    text = strip_c_comments(MANIFEST.read_text(encoding="utf-8"))
    calls = len(re.findall(r"\bLG_(?:CUSTOM_)?OP\s*\(", text))
    assert len(manifest) == calls
    assert {"CONV_2D", "HARD_SWISH", "DEQUANTIZE", "WHILE"} <= set(manifest)
    assert manifest["CONV_2D"].cpu == (1, 8)
    assert manifest["HARD_SWISH"].gpu  # a row spanning two lines
    assert manifest["MEDIAPIPE_MAX_UNPOOL"].custom_name == "MaxUnpooling2D"


def test_manifest_rows_on_page(doc, manifest):
    assert check_manifest_rows_on_page(doc, manifest) == []


def test_page_rows_in_manifest(doc, manifest):
    assert check_page_rows_in_manifest(doc, manifest) == []


def test_no_rows_have_reasons(doc):
    assert check_no_rows_have_reasons(doc) == []


def test_gpu_column(doc, manifest):
    assert check_gpu_column(doc, manifest) == []


def test_counts(doc):
    assert check_counts(doc) == []


def test_codes(doc, manifest, codes):
    assert check_codes(doc, manifest, codes) == []


def test_cpu_covers_tflite(doc):
    assert check_cpu_covers_tflite(doc) == []


def test_sorted_unique(doc):
    assert check_sorted_unique(doc) == []


def test_extras(doc, manifest):
    mediapipe_h = MEDIAPIPE_H.read_text(encoding="utf-8")
    assert check_extras(doc, manifest, mediapipe_h) == []


# ---- Each check can fail: edited copies in a temp dir ---------------------


def edit_cell(text: str, op: str, column: int, value: str) -> str:
    """The page with cell `column` (0: the op) of op's table row replaced."""
    lines = text.splitlines(keepends=True)
    hits = [i for i, ln in enumerate(lines)
            if ln.startswith(f"| `{op}` |")]
    assert len(hits) == 1, f"{op}: {len(hits)} rows"
    cells = lines[hits[0]].rstrip("\n").strip("|").split("|")
    cells[column] = f" {value} "
    lines[hits[0]] = "|" + "|".join(cells) + "|\n"
    return "".join(lines)


def drop_row(text: str, op: str) -> str:
    return "".join(ln for ln in text.splitlines(keepends=True)
                   if not ln.startswith(f"| `{op}` |"))


def swap_rows(text: str, a: str, b: str) -> str:
    lines = text.splitlines(keepends=True)
    ia = next(i for i, ln in enumerate(lines) if ln.startswith(f"| `{a}` |"))
    ib = next(i for i, ln in enumerate(lines) if ln.startswith(f"| `{b}` |"))
    lines[ia], lines[ib] = lines[ib], lines[ia]
    return "".join(lines)


def bump_number(text, pattern):
    """The text with the number the pattern's group 1 matches (once) plus
    one: a stated count that no longer agrees with the tables."""
    match = re.search(pattern, text)
    assert match, pattern
    start, end = match.span(1)
    return text[:start] + str(int(match.group(1)) + 1) + text[end:]


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _run(check: str, doc: Doc, manifest: Dict[str, ManifestRow]) -> List[str]:
    if check == "manifest_on_page":
        return check_manifest_rows_on_page(doc, manifest)
    if check == "page_in_manifest":
        return check_page_rows_in_manifest(doc, manifest)
    if check == "reasons":
        return check_no_rows_have_reasons(doc)
    if check == "gpu":
        return check_gpu_column(doc, manifest)
    if check == "counts":
        return check_counts(doc)
    if check == "codes":
        return check_codes(doc, manifest, parse_builtin_codes())
    if check == "covers":
        return check_cpu_covers_tflite(doc)
    if check == "sorted":
        return check_sorted_unique(doc)
    if check == "extras":
        return check_extras(doc, manifest,
                            MEDIAPIPE_H.read_text(encoding="utf-8"))
    raise AssertionError(check)


# Every builtin has a CPU kernel now, so the edits that need a "no" row
# first turn these two back into ops without one: their rows say "no" with a
# reason, and the manifest the checks read loses their rows.
UNIMPLEMENTED = ("LSH_PROJECTION", "SKIP_GRAM")


def as_unimplemented(text: str) -> str:
    for op in UNIMPLEMENTED:
        text = edit_cell(edit_cell(text, op, 3, "no"), op, 5,
                         "not yet: a reason")
    return text


def without_unimplemented(
        manifest: Dict[str, ManifestRow]) -> Dict[str, ManifestRow]:
    return {k: v for k, v in manifest.items() if k not in UNIMPLEMENTED}


# (id, edit of the page's text, the check that must then fail); the ids in
# NEEDS_NO_ROWS edit the page as_unimplemented gives, against the manifest
# without_unimplemented gives.
NEEDS_NO_ROWS = {"no-row-given-a-range", "no-row-without-reason",
                 "gpu-on-unimplemented-op"}
PAGE_EDITS = [
    ("cpu-range-narrower", lambda t: edit_cell(t, "ABS", 3, "1–4"),
     "manifest_on_page"),
    ("cpu-range-wider", lambda t: edit_cell(t, "CEIL", 3, "1–2"),
     "page_in_manifest"),
    ("manifest-op-missing", lambda t: drop_row(t, "ADD_N"),
     "manifest_on_page"),
    ("cpu-row-marked-no", lambda t: edit_cell(t, "SQUARE", 3, "no"),
     "manifest_on_page"),
    ("no-row-given-a-range", lambda t: edit_cell(t, "LSH_PROJECTION", 3, "1"),
     "page_in_manifest"),
    ("custom-op-given-a-range",
     lambda t: edit_cell(t, "Mfcc", 3, "1–2"), "page_in_manifest"),
    ("no-row-without-reason", lambda t: edit_cell(t, "SKIP_GRAM", 5, ""),
     "reasons"),
    ("custom-no-row-without-reason",
     lambda t: edit_cell(edit_cell(t, "NumericVerify", 3, "no"),
                         "NumericVerify", 5, " "), "reasons"),
    ("gpu-yes-to-no", lambda t: edit_cell(t, "CONV_2D", 4, "no"), "gpu"),
    ("gpu-no-to-yes", lambda t: edit_cell(t, "CEIL", 4, "yes"), "gpu"),
    ("gpu-on-unimplemented-op", lambda t: edit_cell(t, "SKIP_GRAM", 4, "yes"),
     "gpu"),
    ("gpu-on-custom-op", lambda t: edit_cell(t, "Mfcc", 4, "yes"), "gpu"),
    ("gpu-off-mediapipe-op",
     lambda t: edit_cell(t, "MaxUnpooling2D", 3, "no"), "gpu"),
    ("count-table-cpu",
     lambda t: bump_number(t, r"\| Builtins with a litegpu CPU kernel \| (\d+)"),
     "counts"),
    ("count-table-gpu",
     lambda t: bump_number(t, r"\| Builtins the GPU delegate can claim \| (\d+)"),
     "counts"),
    ("count-sentence",
     lambda t: bump_number(t, r"\*\*(\d+) of \d+ builtins"), "counts"),
    ("count-table-row-missing", lambda t: replace_once(
        t, "| Custom ops with a litegpu CPU kernel | 4 |\n", ""), "counts"),
    ("count-after-a-row-changes", lambda t: edit_cell(t, "ATAN2", 4, "yes"),
     "counts"),
    ("code-wrong", lambda t: edit_cell(t, "ABS", 1, "102"), "codes"),
    ("tflite-range-above-cpu", lambda t: edit_cell(t, "ADD", 2, "1–6"),
     "covers"),
    ("rows-out-of-order", lambda t: swap_rows(t, "ABS", "ADD"), "sorted"),
    ("row-repeated", lambda t: replace_once(
        t, "| `ADD_N` |", "| `ADD` |"), "sorted"),
    ("custom-cpu-dropped", lambda t: edit_cell(
        t, "TFLite_Detection_PostProcess", 3, "no"), "manifest_on_page"),
    ("custom-cpu-range-wrong", lambda t: edit_cell(
        t, "TFLite_Detection_PostProcess", 3, "1–2"), "page_in_manifest"),
    ("custom-cpu-without-row",
     lambda t: edit_cell(t, "Mfcc", 0, "`NotACustomOp`"), "page_in_manifest"),
    ("mediapipe-op-missing", lambda t: drop_row(t, "MaxUnpooling2D"),
     "extras"),
    ("mediapipe-wrong-manifest-row", lambda t: edit_cell(
        t, "MaxUnpooling2D", 1, "`MEDIAPIPE_MAX_POOL_ARGMAX`"), "extras"),
]


@pytest.mark.parametrize("edit,check,no_rows",
                         [pytest.param(e, c, i in NEEDS_NO_ROWS, id=i)
                          for i, e, c in PAGE_EDITS])
def test_check_fails_on_edited_page(tmp_path, manifest, edit, check,
                                    no_rows):
    text = DOC.read_text(encoding="utf-8")
    base = DOC
    if no_rows:
        text = as_unimplemented(text)
        manifest = without_unimplemented(manifest)
        base = tmp_path / "base.md"
        base.write_text(text, encoding="utf-8")
    assert _run(check, parse_doc(base), manifest) == []
    copy = tmp_path / "builtin_ops.md"
    edited = edit(text)
    assert edited != text
    copy.write_text(edited, encoding="utf-8")
    assert _run(check, parse_doc(copy), manifest) != []


def _manifest_copy(tmp_path: Path, extra: str) -> Dict[str, ManifestRow]:
    path = tmp_path / "ops.def"
    path.write_text(MANIFEST.read_text(encoding="utf-8") + extra,
                    encoding="utf-8")
    return parse_manifest(path)


def test_new_manifest_row_needs_a_page_row(tmp_path, doc):
    """A CPU kernel added to the manifest (here STABLEHLO_CBRT, which
    BuiltinOpResolver does not register, on two lines, after a comment that
    mentions LG_OP) fails until the page says so."""
    manifest = _manifest_copy(
        tmp_path,
        "\n/* a comment: LG_OP(NOT_A_ROW, X, y, CPU(1, 1), NO_GPU) */\n"
        "LG_OP(STABLEHLO_CBRT, StablehloCbrt, unary,\n      CPU(1, 1), "
        "NO_GPU)  // float32\n")
    assert "NOT_A_ROW" not in manifest
    assert manifest["STABLEHLO_CBRT"].cpu == (1, 1)
    assert check_manifest_rows_on_page(doc, manifest) != []


def test_manifest_range_change_needs_the_page(tmp_path, doc):
    path = tmp_path / "ops.def"
    text = MANIFEST.read_text(encoding="utf-8")
    old = "LG_OP(CEIL, Ceil, unary, CPU(1, 1), NO_GPU)"
    assert text.count(old) == 1
    path.write_text(text.replace(
        old, "LG_OP(CEIL, Ceil, unary, CPU(1, 2),\n      GPU(2, unary, "
             "unary, 21))"), encoding="utf-8")
    manifest = parse_manifest(path)
    assert manifest["CEIL"].cpu == (1, 2) and manifest["CEIL"].gpu
    assert check_manifest_rows_on_page(doc, manifest) != []
    assert check_page_rows_in_manifest(doc, manifest) != []
    assert check_gpu_column(doc, manifest) != []


def test_new_custom_manifest_row_needs_the_extras(tmp_path, doc):
    manifest = _manifest_copy(
        tmp_path,
        '\nLG_CUSTOM_OP(MEDIAPIPE_LANDMARKS, "Landmarks", mediapipe,\n'
        "             NO_CPU, GPU(1, x, y, -1))\n")
    assert manifest["MEDIAPIPE_LANDMARKS"].custom_name == "Landmarks"
    assert check_extras(doc, manifest,
                        MEDIAPIPE_H.read_text(encoding="utf-8")) != []


@pytest.mark.parametrize("bad", [
    "LG_OP(BAD, Bad, unary, CPU(1), NO_GPU)\n",
    "LG_OP(BAD, Bad, unary, CPU(1, 1))\n",
    "LG_OP(BAD, Bad, unary, CPU(1, 1), GPU_MAYBE)\n",
    "LG_OP(BAD, Bad, unary, CPU(1, 1), NO_GPU\n",
    "LG_OP(CEIL, Ceil, unary, CPU(1, 1), NO_GPU)\n",
])
def test_manifest_parser_rejects_malformed_rows(tmp_path, bad):
    with pytest.raises(ValueError):
        _manifest_copy(tmp_path, "\n" + bad)


def test_page_parser_rejects_malformed_cells(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    copy = tmp_path / "builtin_ops.md"
    copy.write_text(edit_cell(text, "ABS", 3, "yes"), encoding="utf-8")
    with pytest.raises(ValueError):
        parse_doc(copy)
    copy.write_text(edit_cell(text, "ABS", 3, "5–1"), encoding="utf-8")
    with pytest.raises(ValueError):
        parse_doc(copy)
    copy.write_text(replace_once(text, "## Counts\n", "## Totals\n"),
                    encoding="utf-8")
    with pytest.raises(ValueError):
        parse_doc(copy)
