"""docs/c_api_parity.md against litegpu's headers and built library.

The page lists every function of TFLite 2.17's c_api.h, c_api_experimental.h
and c_api_opaque.h with a "yes"/"no" status, plus litegpu's own additions.
These tests keep it true:
  * every "yes" row is declared in include/ (in the header its table or its
    Notes name) and exported by liblitegpu.so;
  * no "no" row is in fact both declared and exported;
  * every TfLite* function declared in litegpu's c_api.h,
    c_api_experimental.h and c_api_opaque.h has a row;
  * the counts the page states match its tables.
"""

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from litegpu.capi import library_path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "c_api_parity.md"
INCLUDE = REPO / "include"
C_DIR = INCLUDE / "tensorflow" / "lite" / "c"
HEADERS = ("c_api.h", "c_api_experimental.h", "c_api_opaque.h")
ADDITIONS = "litegpu additions"
COUNTS = "Counts"
STATUSES = ("yes", "no")
DECLARED_IN = re.compile(r"declared in `([^`]+\.h)`")


# ---- Reading the page --------------------------------------------------------

def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _sections(text):
    """{heading: [table rows as cell lists]} for every '## ' section."""
    sections, current = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None and line.lstrip().startswith("|"):
            cells = _cells(line)
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue  # the separator row
            sections[current].append(cells)
    return sections


def _name(cell, where):
    m = re.fullmatch(r"`(TfLite\w+)`[¹²]*", cell)
    assert m, f"{where}: function cell {cell!r} is not a backticked TfLite name"
    return m.group(1)


def _rows(table, columns, where):
    assert table, f"{where}: no table rows found in docs/c_api_parity.md"
    assert table[0] == columns, (
        f"{where}: table columns are {table[0]}, expected {columns}")
    rows = table[1:]
    assert rows, f"{where}: the table has a header but no rows"
    for row in rows:
        assert len(row) == len(columns), f"{where}: malformed row {row}"
    return rows


def load_doc():
    """The page's rows: a list of dicts with name, header (the TFLite header
    the table is for, or the Header column of the additions), status, notes,
    table; and the stated counts {header: (total, yes, no)}."""
    assert DOC.is_file(), f"{DOC} is missing"
    sections = _sections(DOC.read_text(encoding="utf-8"))
    rows = []
    for header in HEADERS:
        assert header in sections, f"no '## {header}' section in {DOC.name}"
        for i, (num, func, status, notes) in enumerate(
                _rows(sections[header], ["#", "Function", "litegpu", "Notes"],
                      header), start=1):
            assert num == str(i), f"{header}: row {func} is numbered {num}, expected {i}"
            rows.append(dict(name=_name(func, header), header=header,
                             status=status, notes=notes, table=header))
    assert ADDITIONS in sections, f"no '## {ADDITIONS}' section in {DOC.name}"
    for func, header, status, notes in _rows(
            sections[ADDITIONS], ["Function", "Header", "litegpu", "Notes"],
            ADDITIONS):
        header = header.strip("`")
        assert header in HEADERS, f"{ADDITIONS}: {func} names header {header!r}"
        rows.append(dict(name=_name(func, ADDITIONS), header=header,
                         status=status, notes=notes, table=ADDITIONS))
    counts = {}
    assert COUNTS in sections, f"no '## {COUNTS}' section in {DOC.name}"
    for cells in _rows(sections[COUNTS], ["Header", "TFLite functions",
                                          "litegpu: yes", "litegpu: no"],
                       COUNTS):
        counts[cells[0].strip("`")] = tuple(int(c) for c in cells[1:])
    return rows, counts


# ---- Reading the headers -----------------------------------------------------

def _strip_comments(text):
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] != text[i]:
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _strip_preprocessor(text):
    """Drops directives (with their continuation lines, so macro bodies go)
    and the C++-only blocks (#ifdef __cplusplus ... #endif)."""
    out, stack, cpp_depth, continued = [], [], 0, False
    for line in text.split("\n"):
        s = line.strip()
        if continued:
            continued = s.endswith("\\")
            continue
        if s.startswith("#"):
            continued = s.endswith("\\")
            d = re.match(r"#\s*(\w+)", s)
            d = d.group(1) if d else ""
            if d in ("if", "ifdef", "ifndef"):
                cpp = "__cplusplus" in s and d != "ifndef"
                stack.append(cpp)
                cpp_depth += cpp
            elif d == "endif" and stack:
                cpp_depth -= stack.pop()
            continue
        if cpp_depth == 0:
            out.append(line)
    return "\n".join(out)


def declared_functions(text):
    """TfLite* names declared as functions at file scope, in order: an
    identifier directly before a '(' outside parentheses, braces and
    typedefs. Comments, macros and function-pointer parameters do not
    count."""
    text = _strip_preprocessor(_strip_comments(text))
    names, parens, braces, prev, typedef = [], 0, 0, None, False
    for m in re.finditer(r"[A-Za-z_]\w*|[(){};]", text):
        tok = m.group(0)
        top = parens == 0 and braces == 0
        if tok == "(":
            if top and not typedef and prev and prev.startswith("TfLite"):
                names.append(prev)
            parens += 1
        elif tok == ")":
            parens -= 1
        elif tok == "{":
            braces += 1
        elif tok == "}":
            braces -= 1
        elif tok == ";" and top:
            typedef = False
        elif tok == "typedef" and top:
            typedef = True
        prev = tok
    return names


def test_declaration_reader_sees_only_declarations():
    """The reader the other tests rely on: declarations count; calls in
    comments and macros, function-pointer parameters and typedefs don't."""
    text = """
        /* TfLiteInComment(x); */
        // TfLiteInLineComment(y);
        #define TF_LITE_LOG(c) \\
          TfLiteInMacro((c))
        typedef void (*TfLiteCallback)(void* TfLiteNotAName);
        typedef struct { int (*TfLiteMember)(void); } TfLiteStruct;
        #ifdef __cplusplus
        extern "C" {
        #endif
        TFL_CAPI_EXPORT TfLiteStatus TfLiteDeclared(int (*TfLiteParam)(void));
        TFL_CAPI_EXPORT void
        TfLiteSecond(void);
        #ifdef __cplusplus
        }
        #endif
    """
    assert declared_functions(text) == ["TfLiteDeclared", "TfLiteSecond"]


def litegpu_declarations():
    """{function: [header paths relative to include/tensorflow/lite]} over
    every header under include/."""
    headers = sorted(INCLUDE.rglob("*.h"))
    assert headers, f"no headers under {INCLUDE}"
    where = {}
    base = INCLUDE / "tensorflow" / "lite"
    for path in headers:
        rel = str(path.relative_to(base)) if base in path.parents else str(path)
        for name in declared_functions(path.read_text(encoding="utf-8")):
            where.setdefault(name, []).append(rel)
    return where


# ---- Reading the library -----------------------------------------------------

def exported_symbols():
    lib = library_path()
    if not lib.exists():
        pytest.fail(f"{lib} is missing: build the library first "
                    "(cmake --build build/release --target litegpu)")
    nm = shutil.which("nm")
    if nm:
        out = subprocess.run([nm, "-D", "--defined-only", str(lib)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, f"nm failed on {lib}: {out.stderr}"
        symbols = {line.split()[-1] for line in out.stdout.splitlines()
                   if line.strip()}
        assert symbols, f"nm listed no dynamic symbols in {lib}"
        return symbols.__contains__
    handle = ctypes.CDLL(str(lib))
    return lambda name: hasattr(handle, name)


@pytest.fixture(scope="module")
def doc():
    return load_doc()


@pytest.fixture(scope="module")
def declared():
    return litegpu_declarations()


@pytest.fixture(scope="module")
def exported():
    return exported_symbols()


# ---- The checks --------------------------------------------------------------

def test_rows_are_well_formed(doc):
    rows, _ = doc
    bad_status = [(r["table"], r["name"], r["status"]) for r in rows
                  if r["status"] not in STATUSES]
    assert not bad_status, f"status must be 'yes' or 'no': {bad_status}"
    no_reason = [(r["table"], r["name"]) for r in rows
                 if r["status"] == "no" and not r["notes"]]
    assert not no_reason, f"'no' rows need a reason in Notes: {no_reason}"
    seen, dups = set(), []
    for r in rows:
        if r["name"] in seen:
            dups.append(r["name"])
        seen.add(r["name"])
    assert not dups, f"functions listed more than once: {dups}"


def test_yes_rows_are_declared_where_stated(doc, declared):
    rows, _ = doc
    yes = [r for r in rows if r["status"] == "yes"]
    assert yes, "no 'yes' rows parsed from docs/c_api_parity.md"
    problems = []
    for r in yes:
        places = declared.get(r["name"])
        stated = DECLARED_IN.search(r["notes"])
        expected = stated.group(1) if stated else f"c/{r['header']}"
        if not places:
            problems.append(f"{r['name']} ({r['table']}): marked yes but not "
                            "declared in any header under include/")
        elif expected not in places:
            problems.append(f"{r['name']} ({r['table']}): expected in "
                            f"{expected}, declared in {places}; fix the row "
                            "or say 'declared in `<path>`' in its Notes")
    assert not problems, "\n".join(problems)


def test_yes_rows_are_exported(doc, exported):
    rows, _ = doc
    yes = [r["name"] for r in rows if r["status"] == "yes"]
    assert yes, "no 'yes' rows parsed from docs/c_api_parity.md"
    missing = [name for name in yes if not exported(name)]
    assert not missing, (f"marked yes but not exported by {library_path()}: "
                         f"{missing}")


def test_no_rows_are_not_provided(doc, declared, exported):
    rows, _ = doc
    no = [r for r in rows if r["status"] == "no"]
    assert no, "no 'no' rows parsed from docs/c_api_parity.md"
    stale = [f"{r['name']} ({r['table']})" for r in no
             if r["name"] in declared and exported(r["name"])]
    assert not stale, ("declared and exported but marked no; mark them yes: "
                       f"{stale}")


@pytest.mark.parametrize("header", HEADERS)
def test_every_declaration_has_a_row(doc, header):
    rows, _ = doc
    names = declared_functions((C_DIR / header).read_text(encoding="utf-8"))
    assert names, f"no TfLite* declarations found in {C_DIR / header}"
    listed = {r["name"] for r in rows}
    missing = [n for n in names if n not in listed]
    assert not missing, (
        f"declared in include/tensorflow/lite/c/{header} but not in "
        f"docs/c_api_parity.md (add a row to the '{header}' table, or to "
        f"'{ADDITIONS}' if TFLite does not have it): {missing}")


def test_counts_match_tables(doc):
    rows, counts = doc
    assert set(counts) == set(HEADERS), (
        f"the Counts table lists {sorted(counts)}, expected {sorted(HEADERS)}")
    for header in HEADERS:
        table = [r for r in rows if r["table"] == header]
        actual = (len(table),
                  sum(r["status"] == "yes" for r in table),
                  sum(r["status"] == "no" for r in table))
        assert counts[header] == actual, (
            f"Counts row for {header} says (total, yes, no) = "
            f"{counts[header]}, the table has {actual}")


# ---- TFLite 2.13 to 2.15's operator names -----------------------------------

REGISTRATION_EXTERNAL = [
    "TfLiteRegistrationExternalCreate", "TfLiteRegistrationExternalDelete",
    "TfLiteRegistrationExternalGetBuiltInCode",
    "TfLiteRegistrationExternalGetCustomName",
    "TfLiteRegistrationExternalGetVersion",
    "TfLiteRegistrationExternalSetInit", "TfLiteRegistrationExternalSetFree",
    "TfLiteRegistrationExternalSetPrepare",
    "TfLiteRegistrationExternalSetInvoke",
    "TfLiteRegistrationExternalSetAsyncKernel",
    "TfLiteRegistrationExternalSetInplaceOperator",
]


def test_registration_external_names_are_exported_functions(exported):
    """core/c/registration_external.h declares the 2.13 to 2.15 names, each
    exported as a function of its own (not a macro) beside its TfLiteOperator
    counterpart."""
    core = INCLUDE / "tensorflow" / "lite" / "core" / "c"
    names = declared_functions(
        (core / "registration_external.h").read_text(encoding="utf-8"))
    assert names == REGISTRATION_EXTERNAL
    operator_names = declared_functions(
        (core / "operator.h").read_text(encoding="utf-8"))
    missing = [n for n in names if not exported(n)]
    assert not missing, f"declared but not exported: {missing}"
    for name in names:
        counterpart = name.replace("TfLiteRegistrationExternal",
                                   "TfLiteOperator")
        assert counterpart in operator_names, counterpart
        assert exported(counterpart), counterpart
    assert "registration_external.h" in (C_DIR / "c_api.h").read_text(
        encoding="utf-8")
