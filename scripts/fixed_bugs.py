#!/usr/bin/env python3
"""Does ptxlint catch the inline-PTX bugs that real projects had to fix? Mine their history.

Usage::

    python scripts/fixed_bugs.py [--mirrors DIR] [REPO ...] [--out DIR] [--dump FILE]
        [--from-dump FILE [--report-only]] [--reviewed FILE] [--candidates]
        [--reviewed-only] [--limit N] [--fix-words-only] [--blind] [--show-held-out]

``--mirrors`` holds bare git mirrors with full history, ``DIR/<owner>+<name>/repo`` (the layout
of the ``fetch`` tool; a clone's ``repo/.git`` is read too; default ``$PTXLINT_MIRRORS``, else
``mirrors/`` in ptxlint's cache folder: ``scripts/locations.py``); REPO names some of them
(default: every one that ``scripts/fixed_bugs_repos.txt`` lists); a commit that several of them
share (a fork's history) is mined once, under the first. Nothing is checked out: for each commit
of the default branch whose diff changes an inline asm statement of a C++, Python or Julia
source (``git log -G`` narrows, then the hunks are read), the pre- and post-commit versions of
each changed file, plus the files they include with quotes (resolved like ptxlint does: beside
the file, else a folder above), are written under ``--out/<sha>/{old,new}/<path>`` and linted
in-process with every rule (no cache).

A statement is *touched* when a removed or added line lies inside it (template, constraint,
clobber, ``volatile``), or when a changed ``#if``/``#elif``/``#else`` line opens the block
that holds it. Per commit the script says:

- ``caught``: a finding (error or warning) on a touched statement of the old version whose
  rule and message the new version no longer has as often (the fix made it go away; a
  finding the new version has only in a dead ``#if`` branch, which no build compiles, counts
  as gone);
  ``caught-info`` when only an info finding went;
- ``silent``: a touched statement existed before (a modification) and nothing went away;
- ``new-code``: only added statements were touched (nothing to fix before).

Whether a ``silent`` commit is a *missed bug* or *not a fix* is a human's call: the reviewed
list ``tests/data/fixed_bugs.toml`` holds that verdict per commit (``bug`` true/false, what it
was, whether a linter can know it). With it the script prints recall: caught / real bugs, and
caught / real bugs a linter could know. ``--candidates`` prints the unreviewed modifications
with their subjects and a fix-word hint, most likely fixes first, for review.

Unseen checks: ``--blind`` lints nothing and lists the unreviewed modifications (with
``--fix-words-only``, those whose message has a fix word), so that a reviewer judges each diff
and splits the real bugs at random before ptxlint says anything about them. A reviewed bug's
``half`` is then ``seen`` or ``held_out``: the report prints recall per half, and lists the
held-out bugs one by one only with ``--show-held-out`` (whoever designs rules must not read them).

The dump (``--dump``) keeps every commit's verdict and findings, so a second run with
``--from-dump`` re-prints without linting, and a run with both re-lints only what is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from scripts.locations import mirrors_root  # noqa: E402

REVIEWED = ROOT / "tests" / "data" / "fixed_bugs.toml"

REPOS_FILE = Path(__file__).resolve().with_name("fixed_bugs_repos.txt")


def _listed_repos(path: Path) -> tuple[str, ...]:
    """The mirror names ``path`` lists, one a line, in order, with ``#`` comments dropped."""
    names = (line.partition("#")[0].strip() for line in path.read_text().splitlines())
    return tuple(name for name in names if name)


REPOS: tuple[str, ...] = _listed_repos(REPOS_FILE)

CXX_SUFFIXES = (
    ".cu", ".cuh", ".h", ".hpp", ".hxx", ".cpp", ".cc", ".cxx", ".inl", ".inc", ".cu.inc",
)
# Python and Julia sources hold asm in calls (no preprocessor, "#" comments)
SCRIPT_SUFFIXES = (".py", ".jl")
PATHSPECS = tuple(f"*{s}" for s in CXX_SUFFIXES + SCRIPT_SUFFIXES)
# -G narrows the log to diffs with a line that looks like asm, a PTX template or a constraint;
# the hunks are then read to keep only changes inside a statement (or its guard).
PICKAXE = (
    r"asm|inline_asm|InlineAsm|__CUDA_ARCH|"
    r"\.(sync|aligned|shared|global|b16|b32|b64|u32|u64|s32|f16|bf16|f32|f64|cta|gpu|sys|"
    r"release|acquire|relaxed|async|pred|reg)\b|"
    r"\"[=+&]*[rlhfdcnm]\" *\(|\"memory\""
)
FIX_WORDS = re.compile(
    r"\b(fix\w*|bug\w*|wrong|typo|hang\w*|race|incorrect|illegal|ptxas|error|crash\w*|"
    r"mismatch|broken|invalid|miscompil\w*|deadlock|correct(ness)?|workaround|clobber|volatile|"
    r"missing)\b",
    re.I,
)

_CXX_ASM = re.compile(
    r"(?<![\w$])(?:asm|__asm__|__asm)(?:\s+(?:volatile|__volatile__|goto|inline))*\s*\("
)
_PY_ASM = re.compile(
    r"(?<![\w$])(?:inline_asm_elementwise|elementwise_inline_asm|inline_asm|InlineAsm)\s*\("
)
# CUDA.jl / LLVM.jl's @asmcall and Base.llvmcall (whose IR may hold an inline asm call)
_JL_ASM = re.compile(r"(?:@asmcall|(?<![\w$@])llvmcall)\s*\(")
_PP_COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|elifdef|elifndef)\b")
_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"\n]+)"', re.M)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


# ---------------------------------------------------------------------------------------------
# git


def git(repo: Path, *args: str, check: bool = True) -> bytes:
    done = subprocess.run(["git", f"--git-dir={repo}", *args], capture_output=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace')}")
    return done.stdout


@dataclass
class Commit:
    sha: str
    parent: str
    date: str
    subject: str
    body: str
    files: list[str]


def candidate_commits(repo: Path) -> list[Commit]:
    """Non-merge commits of the default branch with an asm-looking line in a C++, Python or Julia
    diff."""
    done = subprocess.run(["git", f"--git-dir={repo}", "log", "HEAD", "--no-merges", "-G", PICKAXE,
                           "--name-only", "--format=%x00%H %P%x1f%as%x1f%s%x1f%b%x1e", "--",
                           *PATHSPECS], capture_output=True)
    if done.returncode != 0:
        # A mirror may lack its largest blobs: keep the history read up to the missing one.
        print(f"{repo}: git log stopped early: {done.stderr.decode(errors='replace').strip()}",
              file=sys.stderr)
    out = done.stdout.decode(errors="replace")
    commits = []
    for chunk in out.split("\x00")[1:]:
        head, _, names = chunk.partition("\x1e")
        ids, date, subject, body = (head.split("\x1f") + ["", "", ""])[:4]
        shas = ids.split()
        if len(shas) != 2:  # root commit
            continue
        files = [n for n in names.split("\n")
                 if n.strip() and n.endswith(CXX_SUFFIXES + SCRIPT_SUFFIXES)]
        commits.append(Commit(shas[0], shas[1], date, subject.strip(), body.strip(), files))
    return commits


class Blobs:
    """``git cat-file --batch`` kept open: one process per repository, not one per file."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(["git", f"--git-dir={repo}", "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def get(self, rev: str, path: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{rev}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def changed_lines(repo: Path, commit: Commit, path: str) -> tuple[set[int], set[int], set[int]]:
    """Removed old lines, added new lines, and old lines after which lines were only added."""
    diff = git(repo, "diff", "-U0", "--no-color", "--no-ext-diff", commit.parent, commit.sha,
               "--", path).decode(errors="replace")
    removed: set[int] = set()
    added: set[int] = set()
    inserted_after: set[int] = set()
    for m in _HUNK.finditer(diff):
        o_start, o_len = int(m.group(1)), int(m.group(2) or 1)
        n_start, n_len = int(m.group(3)), int(m.group(4) or 1)
        removed.update(range(o_start, o_start + o_len))
        added.update(range(n_start, n_start + n_len))
        if o_len == 0:
            inserted_after.add(o_start)
    return removed, added, inserted_after


# ---------------------------------------------------------------------------------------------
# where the asm statements are


def _close_paren(text: str, i: int) -> int:
    """Index just past the ``)`` matching the ``(`` before ``i``, skipping strings/comments."""
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            triple = text[i:i + 3] in ('"""', "'''")
            quote = text[i:i + 3] if triple else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                i += 2 if text[i] == "\\" else 1
            i += len(quote)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def asm_spans(text: str, python: bool, julia: bool = False) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of the asm statements (Python, Julia: the asm API calls)."""
    spans = []
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    import bisect

    pattern = _JL_ASM if julia else _PY_ASM if python else _CXX_ASM
    for m in pattern.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if ("#" if python or julia else "//") in text[line_start:m.start()]:
            continue  # commented out
        end = _close_paren(text, m.end())
        first = bisect.bisect_right(starts, m.start())
        last = bisect.bisect_right(starts, max(m.start(), end - 1))
        if last - first > 400:  # an unbalanced statement: keep its first lines only
            last = first + 40
        spans.append((first, last))
    return spans


def guarded_spans(lines: Sequence[str], changed: Iterable[int],
                  spans: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
    """Statements inside the block that a changed ``#if``/``#elif``/``#else`` line opens."""
    hit: set[tuple[int, int]] = set()
    for line in changed:
        if not (0 < line <= len(lines)):
            continue
        m = _PP_COND.match(lines[line - 1])
        if not m or m.group(1) == "endif":
            continue
        depth, end = 0, len(lines)
        for k in range(line, len(lines)):
            d = _PP_COND.match(lines[k])
            if not d:
                continue
            word = d.group(1)
            if word.startswith("if"):
                depth += 1
            elif word == "endif" or (depth == 0 and word in ("elif", "else", "elifdef",
                                                            "elifndef")):
                if depth == 0:
                    end = k + 1
                    break
                if word == "endif":
                    depth -= 1
        hit.update(s for s in spans if line < s[0] < end)
    return hit


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_VOLATILE = re.compile(r"\b(?:volatile|__volatile__)\b")


def asm_shape(text: str, spans: Iterable[tuple[int, int]]) -> Counter[str]:
    """What of the statements a linter reads: string pieces (template, constraints, clobbers)
    and ``volatile``; C++ operand expressions left out."""
    lines = text.split("\n")
    shape: Counter[str] = Counter()
    for a, b in spans:
        body = "\n".join(lines[a - 1:b])
        shape.update(_STRING.findall(body))
        shape.update(f"<volatile>{v}" for v in _VOLATILE.findall(body))
    return shape


def touched(spans: Sequence[tuple[int, int]], lines: set[int], between: Iterable[int] = ()
            ) -> set[tuple[int, int]]:
    out = {s for s in spans if any(s[0] <= n <= s[1] for n in lines)}
    out.update(s for s in spans if any(s[0] <= n < s[1] for n in between))
    return out


# ---------------------------------------------------------------------------------------------
# writing the two versions and linting them


def _includes_of(data: bytes) -> list[str]:
    return _QUOTED_INCLUDE.findall(data.decode(errors="replace"))


def _resolve(blobs: Blobs, rev: str, here: str, name: str) -> tuple[str, bytes] | None:
    """``#include "name"`` from ``here``: beside it, else a folder above, else ``include/``."""
    folder = os.path.dirname(here)
    tried = []
    while True:
        tried.append(os.path.normpath(os.path.join(folder, name)))
        if not folder:
            break
        folder = os.path.dirname(folder)
    tried += [os.path.join(base, name) for base in ("include", "csrc", "src")]
    for path in tried:
        if path.startswith(".."):
            continue
        data = blobs.get(rev, path)
        if data is not None:
            return path, data
    return None


def write_version(blobs: Blobs, rev: str, path: str, data: bytes, dest: Path,
                  max_includes: int = 60) -> Path:
    """Write ``path`` at ``rev`` under ``dest`` and, two levels deep, its quoted includes."""
    target = dest / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    if path.endswith(SCRIPT_SUFFIXES):
        return target
    seen = {path}
    frontier = [(path, data)]
    for _depth in range(2):
        nxt = []
        for here, body in frontier:
            for name in _includes_of(body):
                if len(seen) > max_includes:
                    break
                found = _resolve(blobs, rev, here, name)
                if found is None or found[0] in seen:
                    continue
                seen.add(found[0])
                out = dest / found[0]
                out.parent.mkdir(parents=True, exist_ok=True)
                if not out.exists():
                    out.write_bytes(found[1])
                nxt.append(found)
        frontier = nxt
    return target


@dataclass
class Hit:
    rule: str
    severity: str
    line: int
    message: str
    # A finding in a macro's expansion is reported at the invocation; where the macro's body
    # (which holds the asm statement) is in the same file, the line it is spelled on there.
    spelled_line: int = 0
    # False where no build compiles the statement (its #if branch is dead): a fix that turns
    # the statement off, or rewrites it under `#if 0`, leaves no finding a build would meet.
    built: bool = True


def lint(paths: Sequence[Path], arch: str = "", min_cuda: str = "") -> dict[str, list[Hit]]:
    from ptxlint.analysis.latent import DEAD_BRANCH
    from ptxlint.config import Config, RuleSelector
    from ptxlint.registry import load_rules
    from ptxlint.rule import RuleContext
    from ptxlint.run.runner import run

    rules = list(load_rules().rules)
    config = Config()  # the selector is given no preview ids: the preview rules run too
    context = RuleContext()
    if arch:  # sm_89, sm_90a: the target the project builds the file for
        m = re.fullmatch(r"sm_(\d+)([af]?)", arch)
        if m is None:
            raise ValueError(f"not a target: {arch!r}")
        context = RuleContext(arch=int(m.group(1)), arch_suffix=m.group(2))
    if min_cuda:  # "11.3": the oldest toolkit the project builds with (PTX403's setting)
        from dataclasses import replace

        from ptxlint.ptx.versions import version_options

        # root: a folder without a CMakeLists.txt, so that only this setting counts
        context = replace(context, options=version_options(None, min_cuda, str(paths[0])))
    result = run([str(p) for p in paths], config,
                 RuleSelector(config, [(r.id, r.name) for r in rules]), rules, context)
    hits: dict[str, list[Hit]] = {str(p): [] for p in paths}
    for f in result.findings:
        source = result.sources.get(f.path)
        line = source.text.count("\n", 0, f.span.start) + 1 if source else 0
        spelled = (source.text.count("\n", 0, f.spelled_at.start) + 1
                   if source and f.spelled_at is not None else 0)
        key = None
        if os.path.exists(f.path):
            key = next((k for k in hits if os.path.samefile(k, f.path)), None)
        if key is not None:
            hits[key].append(Hit(f.rule, str(getattr(f.severity, "value", f.severity)), line,
                                 f.message, spelled, not f.latent.startswith(DEAD_BRANCH)))
    return hits


# ---------------------------------------------------------------------------------------------
# one commit


@dataclass
class FileVerdict:
    path: str
    old_touched: list[tuple[int, int]]
    new_touched: list[tuple[int, int]]
    gone: list[dict[str, object]] = field(default_factory=list)  # findings the fix removed
    stayed: list[dict[str, object]] = field(default_factory=list)  # on touched code, still there


@dataclass
class CommitVerdict:
    repo: str
    sha: str
    date: str
    subject: str
    fix_words: list[str]
    verdict: str  # caught | caught-info | silent | new-code
    files: list[FileVerdict]
    # False when only C++ operand expressions or guards changed, not a string or ``volatile``
    shape_changed: bool = True
    arch: str = ""  # the target linted for ("": none, as a user without a configuration)
    min_cuda: str = ""  # the min-cuda-version linted with ("": none)


def _near(hit: Hit, spans: Iterable[tuple[int, int]], slack: int = 1) -> bool:
    # The statement a finding is about is where it is reported or, in a macro's expansion,
    # where the macro's body spells it: a touched #define holds the statement its uses expand.
    lines = (hit.line, hit.spelled_line) if hit.spelled_line else (hit.line,)
    return any(a - slack <= line <= b + slack for a, b in spans for line in lines)


def _key(hit: Hit) -> tuple[str, str]:
    # Line and column numbers inside messages move with the fix; the rest names the defect.
    return hit.rule, re.sub(r"\b(line|column|col\.?) \d+", r"\1 N", hit.message)


def fix_words(commit: Commit) -> list[str]:
    return sorted({w.lower() for w in FIX_WORDS.findall(commit.subject + "\n" + commit.body)
                   for w in ([w] if isinstance(w, str) else [w[0]])})


def judge_commit(repo_name: str, repo: Path, blobs: Blobs, commit: Commit, out: Path,
                 arch: str = "", blind: bool = False, min_cuda: str = ""
                 ) -> CommitVerdict | None:
    """The commit's verdict; ``blind``: find the touched statements but lint nothing (the
    verdict is then ``modification`` or ``new-code``), for a review that must not see what
    ptxlint says."""
    work: list[tuple[str, Path | None, Path | None, set, set]] = []
    shape_changed = False
    for path in commit.files:
        old = blobs.get(commit.parent, path)
        new = blobs.get(commit.sha, path)
        python = path.endswith(".py")
        julia = path.endswith(".jl")
        removed, added, inserted = changed_lines(repo, commit, path)
        old_text = old.decode(errors="replace") if old is not None else ""
        new_text = new.decode(errors="replace") if new is not None else ""
        old_spans = asm_spans(old_text, python, julia) if old is not None else []
        new_spans = asm_spans(new_text, python, julia) if new is not None else []
        o_t = touched(old_spans, removed, inserted)
        n_t = touched(new_spans, added)
        if not (python or julia):
            o_t |= guarded_spans(old_text.split("\n"), removed, old_spans)
            n_t |= guarded_spans(new_text.split("\n"), added, new_spans)
        if not o_t and not n_t:
            continue
        if asm_shape(old_text, o_t) != asm_shape(new_text, n_t):
            shape_changed = True
        if blind:
            work.append((path, None, None, o_t, n_t))
            continue
        base = out / commit.sha[:12]
        o_path = n_path = None
        if old is not None and o_t:
            o_path = write_version(blobs, commit.parent, path, old, base / "old")
        if new is not None:
            n_path = write_version(blobs, commit.sha, path, new, base / "new")
        work.append((path, o_path, n_path, o_t, n_t))
    if not work:
        return None
    words = fix_words(commit)
    if blind:
        files = [FileVerdict(path, sorted(o_t), sorted(n_t)) for path, _, _, o_t, n_t in work]
        verdict = "modification" if any(f.old_touched for f in files) else "new-code"
        return CommitVerdict(repo_name, commit.sha, commit.date, commit.subject, words, verdict,
                             files, shape_changed, arch, min_cuda)
    to_lint = [p for _, o, n, _, _ in work for p in (o, n) if p is not None]
    hits = (lint(to_lint, arch, min_cuda) if any(o is not None for _, o, _, _, _ in work)
            else {})
    # A finding went away when the commit, over all its files, has fewer of its kind (rule and
    # message) than before, and fewer of its rule on the statements it changed: code moved to
    # another file, or a message that quotes the edited text, is not a fix.
    old_all: Counter[tuple[str, str]] = Counter()
    new_all: Counter[tuple[str, str]] = Counter()
    old_near: Counter[str] = Counter()
    new_near: Counter[str] = Counter()
    for _path, o_path, n_path, o_t, n_t in work:
        for h in hits.get(str(o_path), []) if o_path is not None else []:
            old_all[_key(h)] += 1
            old_near[h.rule] += _near(h, o_t)
        for h in hits.get(str(n_path), []) if n_path is not None else []:
            if not h.built:
                continue  # the fix turned the statement off: no build meets it
            new_all[_key(h)] += 1
            new_near[h.rule] += _near(h, n_t)
    files = []
    for path, o_path, n_path, o_t, n_t in work:
        fv = FileVerdict(path, sorted(o_t), sorted(n_t))
        if o_path is not None and n_path is not None:  # deleting a file fixes nothing
            for h in hits.get(str(o_path), []):
                if not _near(h, o_t):
                    continue
                went = new_all[_key(h)] < old_all[_key(h)] and new_near[h.rule] < old_near[h.rule]
                (fv.gone if went else fv.stayed).append(asdict(h))
        files.append(fv)
    if any(f.old_touched for f in files):
        sev = {h["severity"] for f in files for h in f.gone}
        verdict = ("caught" if sev & {"error", "warning"} else "caught-info" if sev else "silent")
    else:
        verdict = "new-code"
    return CommitVerdict(repo_name, commit.sha, commit.date, commit.subject, words, verdict, files,
                         shape_changed, arch, min_cuda)


# ---------------------------------------------------------------------------------------------
# the reviewed list and the report


@dataclass(frozen=True)
class Review:
    """A human's verdict on one commit. ``rules``: the rules whose finding is this bug; a
    finding of another rule that went away with the fix (code moved, a message that names the
    changed text) does not count as catching it."""

    repo: str
    sha: str
    bug: bool
    lintable: bool
    what: str
    rules: tuple[str, ...] = ()
    # The target the project builds the file for, where the bug exists only there (an
    # instruction sm_89 lacks): the commit is linted with it, as a configured project would be.
    arch: str = ""
    found: str = "message"  # "message" | "change" | "sample": how the fix was recognised
    # The oldest CUDA toolkit the project builds with, where the defect exists only there (an
    # instruction form a newer PTX ISA brought): linted with min-cuda-version set to it.
    min_cuda: str = ""
    # "seen" | "held_out" for the bugs mined from projects whose history had not been mined
    # before, split at random before anyone looked at what ptxlint says on them ("": older).
    half: str = ""


HALVES = ("seen", "held_out")


def load_reviews(path: Path) -> dict[str, Review]:
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text())
    out = {}
    for entry in data.get("commit", []):
        r = Review(entry["repo"], entry["sha"], bool(entry["bug"]),
                   bool(entry.get("lintable", False)),
                   entry.get("what", ""), tuple(entry.get("rules", ())), entry.get("arch", ""),
                   entry.get("found", "message"), entry.get("min_cuda", ""),
                   entry.get("half", ""))
        out[r.sha[:10]] = r
    return out


def review_for(reviews: dict[str, Review], sha: str) -> Review | None:
    return reviews.get(sha[:10])


def recall_by_half(rows: Sequence[tuple[dict[str, Any], Review, Sequence[str]]]
                   ) -> dict[str, tuple[int, int, int]]:
    """Per half: (caught, real bugs, real bugs a linter can know)."""
    out = {}
    for half in HALVES:
        mine = [(r, hit) for _, r, hit in rows if r.half == half]
        out[half] = (sum(1 for _, hit in mine if hit), len(mine),
                     sum(1 for r, _ in mine if r.lintable))
    return out


def _gone(verdict: dict[str, Any]) -> set[str]:
    """The rules whose error or warning findings went away with the commit."""
    return {str(h["rule"]) for f in verdict["files"] for h in f["gone"]
            if h["severity"] in ("error", "warning")}


def report(verdicts: Sequence[dict[str, Any]], reviews: dict[str, Review], candidates: bool,
           show_held_out: bool = False) -> int:
    by_verdict = Counter(str(v["verdict"]) for v in verdicts)
    print(f"commits touching asm: {len(verdicts)}  "
          + "  ".join(f"{k}: {by_verdict[k]}"
                      for k in ("caught", "caught-info", "silent", "new-code")))
    rows = []
    info_only: set[str] = set()  # said only at info severity (hidden without --show-info)
    unreviewed = 0
    reviewed = {str(v["sha"])[:10] for v in verdicts}
    for v in verdicts:
        r = review_for(reviews, str(v["sha"]))
        if r is None:
            unreviewed += v["verdict"] != "new-code"
            continue
        if r.bug:
            gone = {str(h["rule"]) for f in v["files"] for h in f["gone"]
                    if h["severity"] in ("error", "warning")}
            info = {str(h["rule"]) for f in v["files"] for h in f["gone"]
                    if h["severity"] == "info"}
            rows.append((v, r, sorted(gone & set(r.rules))))
            if not gone & set(r.rules) and info & set(r.rules):
                info_only.add(str(v["sha"]))
    bugs = len(rows)
    caught = sum(1 for _, _, hit in rows if hit)
    with_arch = sum(1 for _, r, hit in rows if hit and r.arch)
    lintable = sum(1 for _, r, _ in rows if r.lintable)
    print(f"reviewed commits: {sum(1 for r in reviews.values() if r.sha[:10] in reviewed)}  "
          f"real bugs: {bugs}  knowable by a linter: {lintable}")
    if bugs:
        print(f"recall: caught {caught} of {bugs} real bugs ({caught / bugs:.1%}); "
              f"of the {lintable} a linter can know: {caught / max(lintable, 1):.1%}"
              f" ({with_arch} caught only with the project's target, --arch)")
    by_message = [(r, hit) for _, r, hit in rows if r.found == "message"]
    if by_message:
        m_caught = sum(1 for _, hit in by_message if hit)
        m_lint = sum(1 for r, _ in by_message if r.lintable)
        print(f"  fixes recognised by their commit message alone: caught {m_caught} of "
              f"{len(by_message)} ({m_caught / len(by_message):.1%}); of the {m_lint} a linter "
              f"can know: {m_caught / max(m_lint, 1):.1%}")
    for half, (h_caught, h_bugs, h_lint) in recall_by_half(rows).items():
        if h_bugs:
            print(f"  half {half}: caught {h_caught} of {h_bugs} real bugs "
                  f"({h_caught / h_bugs:.1%}); of the {h_lint} a linter can know: "
                  f"{h_caught / max(h_lint, 1):.1%}")
            # a missed bug where a finding of a rule its review does not name went away (a rule
            # newer than the review, or one it did not think of): a count for a reviewer to
            # judge, never a catch, and never which bug (the held-out half stays unseen)
            others = sum(1 for v, r, hit in rows if r.half == half and not hit and _gone(v))
            if others:
                print(f"    {others} missed with a finding of another rule gone "
                      "(for a reviewer to judge; not counted)")
    if info_only:
        print(f"  said only at info severity (not counted as caught): {len(info_only)}")
    print(f"modifications not reviewed: {unreviewed}")
    order = {True: 0, False: 1}
    rows.sort(key=lambda t: (order[bool(t[2])], not t[1].lintable, t[0]["repo"]))
    hidden = [row for row in rows if row[1].half == "held_out" and not show_held_out]
    if hidden:  # the unseen check stays unseen: its counts only, not which bug is missed
        print(f"  ({len(hidden)} held-out bugs not listed: --show-held-out lists them)")
    for v, r, hit in rows:
        if r.half == "held_out" and not show_held_out:
            continue
        mark = ("CAUGHT" + (f" --arch {r.arch}" if r.arch else "")
                + (f" cuda>={r.min_cuda}" if r.min_cuda else "")) if hit else (
            "missed (info only)" if str(v["sha"]) in info_only
            else "missed" if r.lintable else "missed (not lintable)")
        print(f"  {mark:24} {v['repo']:36} {str(v['sha'])[:12]} {','.join(hit) or '-':14} {r.what}")
    if candidates:
        print("\nunreviewed modifications (fix words first):")
        pending = [v for v in verdicts if review_for(reviews, str(v["sha"])) is None
                   and v["verdict"] != "new-code"]
        pending.sort(key=lambda v: (not v["fix_words"], str(v["repo"]), str(v["date"])))
        for v in pending:
            rules = sorted({f"{h['rule']}@{h['line']}" for f in v["files"] for h in f["gone"]})
            print(f"  {v['verdict']:11} {v['repo']:36} {str(v['sha'])[:12]} {v['date']} "
                  f"[{','.join(v['fix_words'])}] {v['subject'][:90]}  {' '.join(rules)}")
    return 0


def blind_report(verdicts: Sequence[dict[str, Any]]) -> int:
    """The unreviewed modifications, fix words first, with the statements each touched: what a
    reviewer reads (``git show``) before any lint verdict."""
    verdicts = sorted(verdicts, key=lambda v: (not v["fix_words"], str(v["repo"]),
                                               str(v["date"])))
    print(f"unreviewed modifications of asm statements: {len(verdicts)}")
    for v in verdicts:
        where = " ".join(f"{f['path']}:{a}-{b}" for f in v["files"] for a, b in f["old_touched"])
        print(f"  {v['repo']:36} {str(v['sha'])[:12]} {v['date']} "
              f"[{','.join(v['fix_words'])}] {v['subject'][:90]}  {where[:160]}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="*", help="mirror names (owner+name); default: all of REPOS")
    ap.add_argument("--mirrors", type=Path, help="default: $PTXLINT_MIRRORS, else in the cache")
    ap.add_argument("--out", type=Path,
                    help="scratch folder (default: fixed-bugs/ in ptxlint's cache folder)")
    ap.add_argument("--dump", help="write every commit's verdict here (JSON)")
    ap.add_argument("--from-dump", help="start from this dump; lint only commits it lacks")
    ap.add_argument("--reviewed", default=str(REVIEWED))
    ap.add_argument("--candidates", action="store_true", help="list unreviewed modifications")
    ap.add_argument("--reviewed-only", action="store_true",
                    help="lint only the commits the reviewed list names")
    ap.add_argument("--limit", type=int, default=0, help="at most N commits per repository")
    ap.add_argument("--fix-words-only", action="store_true",
                    help="only commits whose message has a fix word (FIX_WORDS)")
    ap.add_argument("--show-held-out", action="store_true",
                    help="list the held-out bugs one by one too (by default only their counts: "
                    "whoever designs rules must not read them)")
    ap.add_argument("--blind", action="store_true",
                    help="lint nothing: list the unreviewed modifications of asm statements, "
                    "for a review (and a held-out split) that has not seen what ptxlint says")
    ap.add_argument("--report-only", action="store_true",
                    help="with --from-dump: print the dump's verdicts against the reviewed list, "
                    "reading no repository and linting nothing")
    args = ap.parse_args(argv)
    if args.mirrors is None:
        args.mirrors = mirrors_root()
    if args.out is None:
        from ptxlint.run.cache import root

        args.out = root() / "fixed-bugs"

    reviews = load_reviews(Path(args.reviewed))
    done: dict[str, dict[str, Any]] = {}
    if args.from_dump and os.path.exists(args.from_dump):
        done = {str(v["sha"]): v for v in json.loads(Path(args.from_dump).read_text())}
    if args.report_only:
        return report(list(done.values()), reviews, args.candidates, args.show_held_out)
    names = args.repos or list(REPOS)
    if args.reviewed_only and not args.repos:
        names = sorted({r.repo for r in reviews.values()})
    verdicts: list[dict[str, Any]] = []
    out = Path(args.out)
    mined: set[str] = set()  # forks share history (the ccminers): a commit counts once
    for name in names:
        repo = Path(args.mirrors) / name / "repo"
        if (repo / ".git").is_dir():  # a mirror kept as a clone with a work tree's layout
            repo = repo / ".git"
        if not repo.exists():
            print(f"{name}: no mirror at {repo}", file=sys.stderr)
            continue
        commits = [c for c in candidate_commits(repo) if c.sha not in mined]
        mined.update(c.sha for c in commits)
        if args.reviewed_only:
            commits = [c for c in commits if review_for(reviews, c.sha) is not None]
        if args.fix_words_only:
            commits = [c for c in commits if fix_words(c)]
        if args.limit:
            commits = commits[:args.limit]
        blobs = Blobs(repo)
        try:
            for commit in commits:
                review = review_for(reviews, commit.sha)
                arch = review.arch if review else ""
                min_cuda = review.min_cuda if review else ""
                if args.blind:
                    if review is None:
                        bv = judge_commit(name, repo, blobs, commit, out, blind=True)
                        if bv is not None and bv.verdict == "modification":
                            verdicts.append(asdict(bv))
                    continue
                if (commit.sha in done and done[commit.sha].get("arch", "") == arch
                        and done[commit.sha].get("min_cuda", "") == min_cuda):
                    verdicts.append(done[commit.sha])
                    continue
                try:
                    v = judge_commit(name, repo, blobs, commit, out, arch, min_cuda=min_cuda)
                except Exception as exc:  # a bad commit must not stop the mining
                    print(f"{name} {commit.sha[:12]}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    continue
                if v is not None:
                    verdicts.append(asdict(v))
                    done[commit.sha] = verdicts[-1]
                    if args.dump:
                        Path(args.dump).write_text(json.dumps(list(done.values()), indent=0))
        finally:
            blobs.close()
        print(f"{name}: {len(commits)} commits read", file=sys.stderr)
    if args.blind:
        return blind_report(verdicts)
    if args.dump:
        Path(args.dump).write_text(json.dumps(list(done.values()), indent=0))
    return report(verdicts, reviews, args.candidates, args.show_held_out)


if __name__ == "__main__":
    sys.exit(main())
