"""Model specs (the spec language of runtime/writer/model_spec.h, built
with tools/model_builder) that more than one test file runs."""

# Activations the interpreter fuses into their producers (RELU into ADD,
# RELU6 into MUL) leave the plan before the delegate sees it: node indices
# 1 and 4 have no decision. The plan holds ADD 0, CEIL 2 and MUL 3; the
# GPU takes ADD and MUL (two partitions) and leaves CEIL. All [1,4] float32.
FUSED_SPEC = """tensor x FLOAT32 1,4
tensor s FLOAT32 1,4
tensor r FLOAT32 1,4
tensor c FLOAT32 1,4
tensor m FLOAT32 1,4
tensor y FLOAT32 1,4
op ADD 1 in=x,x out=s
op RELU 1 in=s out=r
op CEIL 1 in=r out=c
op MUL 1 in=c,c out=m
op RELU6 1 in=m out=y
inputs x
outputs y
"""
