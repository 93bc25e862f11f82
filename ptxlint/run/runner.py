"""Run the engine over discovered files: in this process, or in a pool of processes.

Every file is read at most once here: one without an asm keyword (``prefilter``) is never
parsed, and one whose result the cache holds (``cache``) is never linted. With the cache, a file
whose stat the file index (``file_index``) knows is not read at all: its prefilter verdict and
the digest its result is stored under come from the index, once the headers that verdict or
result read are checked unchanged. The rest are linted here or, when there is enough of them,
by a pool of processes (``pool``, as in flake8) that starts while discovery is still walking
and is fed each file as it is found: the costliest first (``job_cost``), and once the walk has
ended a folder's Python files together (``family_order``). Without the cache, a file with no
asm keyword but an include goes to a worker, which reads the headers it includes to decide
(``prefilter``): this process does no pass over the tree before the workers start. Workers
write their results to the cache; the report keeps discovery order. Fixing always runs in this
process, because it writes files.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ptxlint import collector, file_memos, file_traits
from ptxlint.config import Config, RuleSelector
from ptxlint.frontends import tree_reuse
from ptxlint.frontends.cxx import companion, headers
from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.report.run_result import RunResult
from ptxlint.rule import HELPER_CALLS, Rule, RuleContext
from ptxlint.run import file_index, file_parts, include_graph, prefilter
from ptxlint.run.cache import ResultCache, code_fingerprint
from ptxlint.run.cache import location as cache_location
from ptxlint.run.discover import (
    DEFAULT_EXTENSIONS,
    DiscoveredFile,
    Discovery,
    ReadingProbe,
    decode_source,
    discover,
    is_valid_utf8,
    read_bytes,
    read_bytes_stat,
)
from ptxlint.run.file_index import CALLS_HELPERS, MAY_HOLD_ASM, NO_ASM, FileIndex, digest_of
from ptxlint.run.file_verdict import record_of
from ptxlint.run.folder_settings import FolderSettings
from ptxlint.run.outcome import UNLINTED, FileOutcome, file_outcome, merge
from ptxlint.run.packed_source import pack
from ptxlint.run.pool import Feed
from ptxlint.run.progress import Progress
from ptxlint.tier2 import build_targets
from ptxlint.tier2.build_targets import BuildTargets
from ptxlint.value_class import value_class

if TYPE_CHECKING:
    from ptxlint.config_discovery import ConfigResolver
    from ptxlint.tier2 import Tier2Session


@value_class(slots=False)
class Tier2Settings:
    """How to build a Tier-2 session (in this process or in each worker)."""

    compile_commands: str | None = None  # the database file, already located
    clang_args: tuple[str, ...] = ()
    # the database's -I folders inside the linted tree: `#include <project/x.h>` of an asm
    # macro resolves there (set by run(), for the extractor of every process)
    include_dirs: tuple[str, ...] = ()

    @property
    def wanted(self) -> bool:
        return self.compile_commands is not None or bool(self.clang_args)

    def session(self) -> Tier2Session | None:
        if not self.wanted:
            return None
        from ptxlint.tier2 import Tier2Session, compile_db

        db = compile_db.load(Path(self.compile_commands)) if self.compile_commands else None
        return Tier2Session(db, self.clang_args)


# Starting workers (an interpreter each, the rules) costs about what linting this much does.
PARALLEL_MIN_BYTES = 1024 * 1024
# A wide pool's workers start while the early walk (``_Run.start_early``) goes on, once it has
# met this many bytes of files to read that the file index does not know: about a third of
# such bytes bear asm in the CUDA 13 headers and CUTLASS's include/, nearly half in flashinfer,
# so the pool would start anyway. Met by the 252nd of their 2,624 files.
EARLY_START_BYTES = 4 * PARALLEL_MIN_BYTES


def lint_path(
    path: str,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    max_file_size: int,
    fix_mode: str | None = None,
    unsafe_fixes: bool = False,
    tier2: Tier2Session | None = None,
    data: bytes | None = None,
    count_types: bool = True,
) -> FileOutcome:
    """Lint one file (``data``: its bytes, when the caller has read them already; its typed
    operands counted only with ``count_types``, see ``outcome.FileOutcome``). ``run``
    admitted the file through the prefilter before handing it here; a worker re-reading it does
    not ask again (the header closures of the include check would be read once more per
    worker).

    The cyclic garbage collector stays paused (``ptxlint.collector``) until the file's objects
    are let go, and then collects the young generation once, where a cycle may be left (in a
    process that settles, only where one holds the file's syntax tree). Resumed as the lint
    returned, its first collection traversed every object the lint had made, still alive: 7%
    of the CPU of a flashinfer sample. Resumed without that collection, the allocations left
    too few to start one, and the extractor's cycles of the time, holding the files' trees,
    tripled the memory."""
    with collector.paused(collect_young=True):
        return _lint_path(
            path, rules, context, selector, max_file_size, fix_mode, unsafe_fixes, tier2, data,
            count_types,
        )


def _lint_path(
    path: str,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    max_file_size: int,
    fix_mode: str | None,
    unsafe_fixes: bool,
    tier2: Tier2Session | None,
    data: bytes | None,
    count_types: bool,
) -> FileOutcome:
    from ptxlint.engine import lint_source
    from ptxlint.frontends.cxx.guards import unread_note

    if data is None:
        data, reason = read_bytes(path, max_file_size)
        if data is None:
            return FileOutcome(path, reason=reason or "could not be read")
    text, decode_errors = decode_source(data)
    source = SourceFile(path, text, decode_errors)
    # a header a file linted before read for its flows is not extracted again
    result = lint_source(source, rules, context, selector, tier2, kept_headers=True)
    outcome = file_outcome(path, source, result, count_types)
    note = unread_note(s.context.guards for s in result.statements)
    if note is not None:
        outcome.file_notes.append(note)
    if fix_mode and not decode_errors and any(f.fix for f in result.findings):
        from ptxlint.run.fix_file import fix_file

        outcome = fix_file(source, outcome, rules, context, selector, fix_mode, unsafe_fixes,
                           tier2, count_types)
    if tier2 is not None:
        outcome.notes = list(tier2.notes)
    file_memos.release()  # nothing asks about this file again in a batch run
    return outcome


def collected(outcome: FileOutcome, keep_statements: bool = True) -> FileOutcome:
    """``outcome`` as the run keeps it until the report: the text of the file packed, and
    without the statements its findings point to unless the report needs them (``--verify``,
    ``--add-noqa``, fingerprints). Those held every statement's parse and operands: on
    flashinfer (31,000 findings) more memory than the texts. An internal error keeps its
    statement (reports place it by whether it has one)."""
    if outcome.source is not None:
        outcome.source = pack(outcome.source)
    if not keep_statements and any(f.statement is not None for f in outcome.findings):
        from ptxlint.engine import INTERNAL_ERROR

        outcome.findings = [
            f if f.statement is None or f.rule == INTERNAL_ERROR
            else dataclasses.replace(f, statement=None)
            for f in outcome.findings
        ]
    return outcome


# --------------------------------------------------------------------------- worker processes

_WORKER: dict[str, object] = {}


def _init_worker(
    config: Config,
    selector: RuleSelector,
    rule_ids: tuple[str, ...],
    context: RuleContext,
    tier2: Tier2Settings,
    resolver: ConfigResolver | None = None,
    cache: ResultCache | None = None,
    keep_statements: bool = True,
    count_types: bool = True,
) -> None:
    from ptxlint.engine import instantiate
    from ptxlint.run import orphan_guard  # with threading: a worker's only

    orphan_guard.watch_parent()
    collector.settle_after_each_file()  # a worker lints files until the run ends
    classes = [r for r in load_rules().rules if r.id in rule_ids]
    headers.set_include_dirs(tier2.include_dirs)
    headers.keep_header_digests(False)  # the main process records what results depend on
    _WORKER["cache"] = cache
    session = _WORKER["tier2"] = tier2.session()
    _WORKER["build"] = _build_targets(tier2, session)
    _WORKER["rules"] = instantiate(classes)
    # the main process's own selector: a worker judges each rule as a lint here would
    _WORKER["selector"] = selector
    _WORKER["context"] = context
    _WORKER["max_file_size"] = config.max_file_size
    _WORKER["resolver"] = resolver
    _WORKER["keep_statements"] = keep_statements
    _WORKER["count_types"] = count_types


class _Job:
    """One file handed to a worker process: its place in the report, and the result cache's key for
    the bytes the main process read. (A plain class: a data class costs about 0.3 ms of CPU to
    create at every start, and jobs are never compared or printed.)"""

    __slots__ = ("index", "path", "size", "cost", "key", "digest", "check", "part", "parts")

    def __init__(self, index: int, path: str, size: int, key: str | None,
                 digest: bytes | None = None, check: int = 0, part: int = 0,
                 parts: int = 0, cost: int | None = None) -> None:
        self.index = index  # position in the run's file order, which the report keeps
        self.path = path
        self.size = size  # bytes: what the pool's start thresholds weigh
        # what the pool orders and batches the work by (``job_cost``); its bytes where unknown
        self.cost = size if cost is None else cost
        self.key = key  # the result cache's key, None when not caching
        self.digest = digest  # of the bytes the key was made from
        # no asm keyword, but an include: the worker asks the prefilter whether a header it
        # includes brings an asm macro the file names (reading those headers) before linting;
        # HELPERS: or an asm helper, for an enabled rule that needs helper-calls
        self.check = check
        # of ``parts``: a big file linted in parts (``file_parts``); 0: a whole file's job
        self.part = part
        self.parts = parts


HELPERS = 2  # a job's ``check``: an asm helper of an included header counts too

# What one front-end keyword of a file (C++'s ``asm``) weighs against one of its bytes when the
# pool orders its work (``job_cost``). A file's CPU is its parse, by its bytes, and its
# statements' reading, analysis and rules, by its keywords: over the 168 asm-bearing files of
# the CUDA 13 headers and CUTLASS's include/ outside CUB (whose first file pays the include
# reach), each linted alone, a least-squares fit gives 0.154 us a byte and 0.226 ms a keyword,
# about 1,460 bytes. By bytes alone, the CUDA headers' asm-dense files (``cuda_bf16.hpp``: 137
# KB, 204 keywords, 0.37 s on a busy core; ``sm_32_intrinsics.hpp``, ``cuda_fp16.hpp``, CCCL's
# ``cuda_ptx_generated.h``) ranked below CUTLASS headers of twice their bytes and a tenth of
# their CPU, were handed out last and ended a ``-j 16`` run over both trees 0.12 s after the
# mean worker. (Fitted on C++; the Python front end's keywords are weighed alike.)
KEYWORD_BYTES = 1500


def job_cost(data: bytes, keywords: int) -> int:
    """What linting ``data`` costs, in bytes (``KEYWORD_BYTES``), with ``keywords`` front end
    keywords in it (``prefilter.keyword_count``)."""
    return len(data) + KEYWORD_BYTES * keywords


def _lint_job(
    job: _Job,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    max_file_size: int,
    tier2: Tier2Session | None,
    cache: ResultCache | None,
    count_types: bool = True,
) -> FileOutcome:
    """Lint a file the main process read before; its result is stored under the key made
    from those bytes only if they are still what this process reads. The include check and
    the lint share one pause of the collector, as ``_Run.admit``'s do (the check's automatic
    collections: 130 in a worker given the CUDA 13 headers' 1,764 such files, freeing
    nothing)."""
    data, reason = read_bytes(job.path, max_file_size)
    if data is None:
        return FileOutcome(job.path, reason=reason or "could not be read")
    with collector.paused(collect_young=True):
        if job.check and not prefilter.may_hold_asm(job.path, data, job.check == HELPERS):
            return FileOutcome(job.path, decode_errors=not is_valid_utf8(data))
        outcome = lint_path(job.path, rules, context, selector, max_file_size, tier2=tier2,
                            data=data, count_types=count_types)
    if cache is not None and job.key is not None and (
        job.digest is None or digest_of(data) == job.digest
    ):
        _store(cache, job.key, outcome)
    return outcome


def _work(job: _Job) -> FileOutcome:
    selector, context = _settings_for(
        job.path,
        _WORKER["selector"],  # type: ignore[arg-type]
        _WORKER["context"],  # type: ignore[arg-type]
        _WORKER["resolver"],  # type: ignore[arg-type]
        _WORKER["build"],  # type: ignore[arg-type]
    )
    if job.parts:
        return file_parts.lint_part_job(
            job.path, job.part, job.parts,
            _WORKER["rules"],  # type: ignore[arg-type]
            context, selector,
            _WORKER["max_file_size"],  # type: ignore[arg-type]
            bool(_WORKER["count_types"]),
        )
    cache = _WORKER.get("cache")
    outcome = _lint_job(
        job,
        _WORKER["rules"],  # type: ignore[arg-type]
        context,
        selector,
        _WORKER["max_file_size"],  # type: ignore[arg-type]
        _WORKER["tier2"],  # type: ignore[arg-type]
        cache if isinstance(cache, ResultCache) else None,
        bool(_WORKER["count_types"]),
    )
    # Not file_memos.trim() here: handing the heap back after each big file cost the workers
    # a fifth more CPU on flashinfer's 16 biggest files plus a 150-file sample (64.8 s against
    # 54.2 s), for no lower peak (414 against 421 MB) once the memos are released.
    return collected(outcome, bool(_WORKER["keep_statements"]))


def _work_batch(jobs: list[_Job]) -> list[FileOutcome]:
    return [_work(job) for job in jobs]


def family_order(jobs: Sequence[_Job]) -> list[_Job]:
    """``jobs`` costliest first (``_Job.cost``), so that no costly file starts last, except
    that a folder's files that may be parsed as edits of one another (the Python front end's,
    which parses through ``tree_reuse``: generated variants) come together, after the folder's
    costliest: a worker then meets them one after another. A C++ file is parsed afresh, and with its
    folder kept together it ranked with the folder's costliest file, behind every file of the
    folders ranked before: over the CUDA 13 headers and CUTLASS's include/, CCCL's
    ``cuda_ptx_generated.h`` (0.5 s on a busy core) came after 62% of the work's cost and
    ``cuda_fp16.hpp`` (0.34 s) after 77% (now 27% and 57%), and at -j 16 they were handed out
    0.8-0.9 s into a 1.3 s run and ended last."""
    families: dict[object, list[_Job]] = {}
    for job in sorted(jobs, key=lambda j: -j.cost):
        key = tree_reuse.family(job.path) if job.path.endswith(PYTHON_EXTENSIONS) else job
        families.setdefault(key, []).append(job)
    return [job for family in families.values() for job in family]


def _store(cache: ResultCache, key: str, outcome: FileOutcome) -> None:
    """Store ``outcome`` as two parts: the outcome without the statements its findings point
    to, then those statements, which only reports that read them unpickle (they hold every
    operand and parse: 13x the cost of the rest on the CUDA tree's 107 results)."""
    from ptxlint.engine import INTERNAL_ERROR
    from ptxlint.run import statement_pickle

    # internal errors are not facts about the file: the next run tries again
    if outcome.reason is not None or any(f.rule == INTERNAL_ERROR for f in outcome.findings):
        return
    source = outcome.source
    if source is not None:
        # The entry keeps the text packed, as the run keeps it (``collected``, which then has
        # nothing left to do): a tenth of the bytes for generated kernels, whose texts were
        # 85% of flashinfer's 215 MB of entries, and a hit is not compressed again.
        outcome.source = pack(source)
    statements = [f.statement for f in outcome.findings]
    light = dataclasses.replace(outcome, findings=[
        f if f.statement is None else dataclasses.replace(f, statement=None)
        for f in outcome.findings
    ])
    # the statements point to the text they were parsed from: that one is left out of them
    cache.put(key, light, statement_pickle.dumps(statements, source))


def _load(
    cache: ResultCache, key: str, keep_statements: bool, count_types: bool = True
) -> FileOutcome | None:
    """What ``_store`` stored under ``key``, with the statements only when ``keep_statements``;
    None, to lint again, when ``count_types`` and its typed operands were not counted."""
    from ptxlint.run import statement_pickle

    got = cache.get(key, 2 if keep_statements else 1)
    if got is None or not isinstance(got[0], FileOutcome):
        return None
    outcome = got[0]
    if count_types and outcome.typed_operands is None:
        return None
    if keep_statements:
        blob = got[1]
        if not isinstance(blob, bytes):
            return None
        try:
            statements = statement_pickle.loads(blob, outcome.source)
        except Exception:
            return None
        if len(statements) != len(outcome.findings):
            return None
        outcome.findings = [
            f if s is None else dataclasses.replace(f, statement=s)
            for f, s in zip(outcome.findings, statements, strict=True)
        ]
    return outcome


WORKER_DIED = "unreadable: the worker process linting it died"


def _with_include_dirs(tier2: Tier2Settings, paths: Sequence[str]) -> Tier2Settings:
    """The compile database's include folders that lie inside the linted paths or the
    project holding the database (the folder it is in, and that folder's parent)."""
    if tier2.compile_commands is None:
        return tier2
    from ptxlint.tier2 import compile_db

    try:
        db = compile_db.load(Path(tier2.compile_commands))
    except compile_db.CompileDbError:
        return tier2  # the Tier-2 session reports it
    where = Path(tier2.compile_commands).resolve().parent
    roots = [p for p in paths if os.path.isdir(p)] + [str(where), str(where.parent)]
    return dataclasses.replace(tier2, include_dirs=compile_db.project_include_dirs(db, roots))


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


_RULES_KEYS: dict[tuple[object, ...], str] = {}


def _rules_key(selector: RuleSelector, rule_classes: Sequence[type[Rule]], path: str) -> str:
    """The rules that run on ``path``, their severities and whether they may fix: the path
    counts only through the per-file ignores that apply to it, so the key is worked out once
    per selector and set of ignores (a warm run asks for every file with asm)."""
    ignores = getattr(selector, "ignores_for_path", None)
    memo = (selector, tuple(rule_classes), ignores(path)) if ignores is not None else None
    if memo is not None and memo in _RULES_KEYS:
        return _RULES_KEYS[memo]
    fixable = getattr(selector, "fixable", None)
    parts = []
    for r in rule_classes:
        if selector.enabled(r.id, r.name, path):
            level = selector.severity_for(r.id, r.name, r.severity.value)
            fix = "" if fixable is None or fixable(r.id, r.name) else "-nofix"
            parts.append(f"{r.id}={level}{fix}")
    key = ",".join(parts)
    if memo is not None:
        if len(_RULES_KEYS) > 256:  # selectors of earlier runs in this process
            _RULES_KEYS.clear()
        _RULES_KEYS[memo] = key
    return key


def _context_key(context: RuleContext) -> str:
    return repr((context.arch, context.arch_suffix, sorted(context.options.items(), key=str),
                 context.targets, context.targets_from))


def _settings_for(
    path: str, selector: RuleSelector, context: RuleContext, resolver: ConfigResolver | None,
    build: BuildTargets | None = None,
) -> tuple[RuleSelector, RuleContext]:
    if resolver is not None:
        settings = resolver.for_path(path)  # configuration per file
        selector, context = settings.selector, settings.context
    return selector, build_targets.applied(context, build, path)


def _build_targets(tier2: Tier2Settings, session: Tier2Session | None) -> BuildTargets:
    """Each translation unit's targets from the compile database, read once per process: the
    Tier-2 session's copy where this process has one."""
    if session is not None and session.db is not None:
        return build_targets.of_database(session.db)
    return build_targets.load(tier2.compile_commands)


def _key(
    cache: ResultCache,
    path: str,
    record: file_index.Record,
    selector: RuleSelector,
    context: RuleContext,
    rule_classes: Sequence[type[Rule]],
) -> str:
    """The result's key: the file's digest and its headers' fingerprint (a result reads both),
    the rules that run on it and the settings they read."""
    rules_key = _rules_key(selector, rule_classes, path)
    # the folder's CMake toolkit gate (PTX403) is read from neither the file nor its headers
    gate = repr(file_traits.toolkit_gate_at(path))
    return cache.key_of_digest(
        path, record[1] + record[6], rules_key + _context_key(context) + gate)


def result_cache(rule_classes: Sequence[type[Rule]], config: Config) -> ResultCache:
    modules = ["ptxlint", *(r.__module__ for r in rule_classes)]
    rules = ";".join(f"{r.__module__}.{r.__qualname__}" for r in rule_classes)
    salt = "\0".join([code_fingerprint(modules), rules, repr(config.extensions)])
    return ResultCache(cache_location("results"), salt)


def run(
    paths: Sequence[str],
    config: Config,
    selector: RuleSelector,
    rule_classes: Sequence[type[Rule]],
    context: RuleContext,
    progress: Progress | None = None,
    fix_mode: str | None = None,
    unsafe_fixes: bool = False,
    jobs: int = 1,
    tier2: Tier2Settings = Tier2Settings(),
    resolver: ConfigResolver | None = None,
    use_cache: bool = False,
    keep_statements: bool = True,
    count_types: bool = True,
) -> RunResult:
    """Lint ``paths``. Files without an asm keyword, and files whose result the cache holds
    (``use_cache``), never reach a parser or a worker; with the cache, a file that the index
    knows unchanged by its stat, with unchanged headers, is not even read (``file_index``:
    a warm run costs a stat per file and per header). Each file is taken as discovery finds
    it: with ``jobs`` > 1 the workers start on the first files while the walk goes on
    (``pool``). ``keep_statements=False``: the findings come without the statement they are in
    (``Finding.statement`` is None, but for internal errors), for reports that do not read
    it; a large run then holds far less memory. ``count_types=False``: the typed operands are
    not counted (``RunResult.typed_operands`` stays 0), for reports that do not show them:
    counting types the operands of every statement, which no selected rule may have asked
    for."""
    started = time.perf_counter()
    started_ns = time.time_ns()
    # A run reads headers as they are when it starts, even after an earlier run in this process.
    headers.forget_headers()
    include_graph.forget()
    companion.forget()
    file_traits.forget_toolkit_gates()
    tier2 = _with_include_dirs(tier2, paths)
    headers.set_include_dirs(tier2.include_dirs)
    cache = None
    index: FileIndex | None = None
    if use_cache and not fix_mode and not tier2.wanted:
        cache = result_cache(rule_classes, config)
        salt = "\0".join([cache.salt, *tier2.include_dirs])
        index = file_index.open_index(cache_location("index"), salt, started_ns)
    headers.keep_header_digests(index is not None)
    state = _Run(paths, config, selector, rule_classes, context, progress, fix_mode,
                 unsafe_fixes, jobs, tier2, resolver, cache, index, keep_statements,
                 count_types)
    walk = functools.partial(
        discover,
        extensions=config.extensions or DEFAULT_EXTENSIONS,
        exclude=config.exclude,
        respect_gitignore=config.respect_gitignore,
        max_file_size=config.max_file_size,
    )
    state.start_early(paths, walk)
    discovery = walk(paths, probe=state.probe, on_file=state.admit)
    state.finish()
    if progress is not None:
        progress.finish()
    result = RunResult(
        errors=[(s.path, s.reason) for s in discovery.errors],
        notes=[(s.path, s.reason) for s in discovery.skipped],
    )
    for outcome in state.outcomes:
        assert outcome is not None
        merge(result, outcome, fix_mode)
    sent = [k for k in state.sent_keys if k]
    if cache is not None and (cache.writes or sent):
        cache.prune(used=cache.used | set(sent))
    if index is not None:
        index.save()
    headers.keep_header_digests(False)
    tree_reuse.forget()  # the last big file's tree, kept for a next file that will not come
    result.seconds = time.perf_counter() - started
    return result


class _Run:
    """One run's files, taken one at a time as discovery finds them (``admit``): answered from
    the cache or the prefilter here, linted here (one process, or ``--fix``), or handed to the
    pool, which starts once there is enough work and gets files while the walk goes on."""

    def __init__(
        self,
        paths: Sequence[str],
        config: Config,
        selector: RuleSelector,
        rule_classes: Sequence[type[Rule]],
        context: RuleContext,
        progress: Progress | None,
        fix_mode: str | None,
        unsafe_fixes: bool,
        jobs: int,
        tier2: Tier2Settings,
        resolver: ConfigResolver | None,
        cache: ResultCache | None,
        index: FileIndex | None,
        keep_statements: bool,
        count_types: bool = True,
    ) -> None:
        self.config = config
        self.selector = selector
        self.rule_classes = rule_classes
        self.context = context
        self.progress = progress
        self.fix_mode = fix_mode
        self.unsafe_fixes = unsafe_fixes
        self.tier2 = tier2
        self.resolver = resolver
        self.cache = cache
        self.index = index
        self.keep_statements = keep_statements
        self.count_types = count_types
        # the rules that make a file without asm worth linting where they are enabled: those
        # the run's selector enables, where one configuration applies to every file
        self.helper_rules = [r for r in rule_classes if HELPER_CALLS in getattr(r, "needs", ())]
        if resolver is None or resolver.isolated or resolver.explicit is not None:
            self.helper_rules = [r for r in self.helper_rules if selector.enabled(r.id, r.name)]
        self.helpers_possible = bool(self.helper_rules)  # else no file is asked about them
        self.helpers_in: dict[str, bool] = {}  # per folder: one of them enabled for some file
        named = {os.path.abspath(p) for p in paths}  # a nested exclude does not remove them
        self.settings = None if resolver is None else FolderSettings(resolver, named)
        self.outcomes: list[FileOutcome | None] = []
        self.sent_keys: list[str | None] = []  # of the jobs linted elsewhere (for pruning)
        # files linted in parts, by position (by a negative number: started early, ``early``)
        self.splits: dict[int, file_parts.Split] = {}
        self.early: dict[str, file_parts.Split] = {}  # started before discovery met them
        self.probe = ReadingProbe(index)
        self.done = 0
        self.walking = True  # until discovery ends, more files may come
        self.serial = jobs <= 1 or fix_mode is not None
        self.rules: list[Rule] | None = None  # instantiated for the first file linted here
        self.session = tier2.session() if self.serial else None
        self.build = _build_targets(tier2, self.session)
        self.feed: Feed[_Job, FileOutcome] | None = None
        if not self.serial:
            ids = tuple(r.id for r in rule_classes)
            self.feed = Feed(
                min(jobs, default_jobs()),
                _init_worker,
                (config, selector, ids, context, tier2, resolver, cache, keep_statements,
                 count_types),
                _work_batch,
                lambda job: FileOutcome(job.path, reason=WORKER_DIED),
                family_order,
                PARALLEL_MIN_BYTES,
            )

    def admit(self, found: DiscoveredFile) -> None:
        path = found.path
        if self._excluded(path):
            return
        position = len(self.outcomes)
        self.outcomes.append(None)
        # one pause for all this process does with the file (lint_path's own is inside it):
        # the prefilter's include check reads headers, and its young objects (header memos,
        # alive) started automatic collections that freed nothing: on the CUDA 13 headers
        # 146 young and 11 middle ones, 0.02-0.03 s of `check -j 1`; 3 in all now
        with collector.paused(collect_young=True):
            outcome = self._take(position, path)
            if outcome is not None:
                self._done(position, outcome)
        if self.feed is not None and self.feed.started:
            for job, outcome in self.feed.poll():
                self._arrived(job, outcome)

    def _excluded(self, path: str) -> bool:
        return self.settings is not None and self.settings.excluded(path)

    def _settings(self, path: str) -> tuple[RuleSelector, RuleContext]:
        """``_settings_for`` of a file of this run."""
        if self.settings is None:
            return self.selector, build_targets.applied(self.context, self.build, path)
        selector, context = self.settings.rules_for(path)
        return selector, build_targets.applied(context, self.build, path)

    def _take(self, position: int, path: str) -> FileOutcome | None:
        """The file's outcome when this process has it now; None when it went to the pool."""
        cache, index = self.cache, self.index
        outcome: FileOutcome | None = None
        record: file_index.Record | None = None
        key: str | None = None
        verdict = MAY_HOLD_ASM
        check = 0
        where = os.path.abspath(path) if index is not None else path
        if index is not None and cache is not None:
            # Unchanged by stat, and so are the headers it read: nothing of it is read.
            record = index.known(where)
            if record is not None and not index.deps_valid(record):
                record = None
            if record is not None and record[2] != MAY_HOLD_ASM:
                helpers = self.helpers_possible and self._helpers(path)
                if helpers and record[2] == NO_ASM:
                    record = None  # not asked whether it names a helper: read it
                elif not (helpers and record[2] == CALLS_HELPERS):
                    return FileOutcome(path, decode_errors=True) if record[3] else UNLINTED
            if record is not None:
                key = self._key(path, record)
                outcome = _load(cache, key, self.keep_statements, self.count_types)
                if outcome is not None:
                    return outcome
        data, reason, st = self.probe.take(path, self.config.max_file_size)
        if data is None:
            return FileOutcome(path, reason=reason or "could not be read")
        if index is not None:
            digest = digest_of(data)
            if record is None or record[1] != digest:
                helpers = not prefilter.has_keyword(path, data) and self._helpers(path)
                record, key = record_of(index, where, path, data, digest, st, helpers), None
            verdict = record[2]
            if verdict == CALLS_HELPERS and self._helpers(path):
                verdict = MAY_HOLD_ASM
        elif not prefilter.has_keyword(path, data):
            if not prefilter.needs_include_check(path, data):
                verdict = NO_ASM
            elif self.feed is None:  # ``may_hold_asm`` with its two tests known false
                uses = prefilter.uses_included_asm_macro(path, data) or (
                    self.helpers_possible and self._helpers(path)
                    and prefilter.calls_included_helper(path, data))
                verdict = MAY_HOLD_ASM if uses else NO_ASM
            else:
                # whether an included header brings an asm macro the file names: the
                # worker that would lint it reads those headers, not this process
                check = HELPERS if self.helpers_possible and self._helpers(path) else 1
        if verdict != MAY_HOLD_ASM:
            return UNLINTED if is_valid_utf8(data) else FileOutcome(path, decode_errors=True)
        if cache is not None and record is not None and key is None:
            key = self._key(path, record)
            outcome = _load(cache, key, self.keep_statements, self.count_types)
            if outcome is not None:
                return outcome
        if self.feed is None:
            return self._lint_here(path, data, key)
        early = self.early.pop(path, None) if self.early else None
        if early is not None and early.data == data:
            self._place(early, position, key)  # its parts are under way
            return None
        # (none for a file without a keyword: judged by the include check in a grouped batch,
        # which ranks by its bytes)
        keywords = None if check else prefilter.keyword_count(path, data)
        if keywords is not None and not self.tier2.wanted \
                and (count := file_parts.parts(path, data, self.feed.workers, keywords)) > 1:
            # the parts' outcomes are merged here (``_arrived``)
            self._split(file_parts.Split(path, data, count, key, position), position, keywords)
            return None
        digest_read = record[1] if record is not None else None
        cost = None if keywords is None else job_cost(data, keywords)
        self.feed.add(_Job(position, path, len(data), key, digest_read, check, cost=cost),
                      grouped=bool(check))
        return None

    def _helpers(self, path: str) -> bool:
        """Whether a rule that needs ``helper-calls`` is enabled for ``path``: in a folder
        whose configuration enables none (a default run's: such rules are preview), one
        look-up by the folder's name (by the file's settings instead, which make its path
        absolute first, it cost 0.07% of ``check -j 1 --no-cache``'s instructions over the
        CUDA 13 headers, counted by cachegrind). Not asked where one configuration applies
        to every file and enables none (``helpers_possible``)."""
        folder = os.path.dirname(path)
        anywhere = self.helpers_in.get(folder)
        if anywhere is None:
            selector, _ = self._settings(path)
            anywhere = self.helpers_in[folder] = any(
                selector.enabled(r.id, r.name) for r in self.helper_rules)
        if not anywhere:
            return False
        selector, _ = self._settings(path)
        return any(selector.enabled(r.id, r.name, path) for r in self.helper_rules)

    def _key(self, path: str, record: file_index.Record) -> str:
        assert self.cache is not None
        file_selector, file_context = self._settings(path)
        return _key(self.cache, path, record, file_selector, file_context, self.rule_classes)

    def _lint_here(self, path: str, data: bytes, key: str | None) -> FileOutcome:
        """One process: lint now, from the bytes just read."""
        file_selector, file_context = self._settings(path)
        outcome = lint_path(
            path,
            self._rules(),
            file_context,
            file_selector,
            self.config.max_file_size,
            self.fix_mode,
            self.unsafe_fixes,
            self.session,
            data=data,
            count_types=self.count_types,
        )
        if self.cache is not None and key is not None:
            _store(self.cache, key, outcome)
        return outcome

    def _rules(self) -> list[Rule]:
        if self.rules is None:
            # the engine's imports are the start-up's last (some 90 modules for a small file):
            # objects that live as long as the process, whose collections freed nothing (13
            # of a small file's check, 2 ms)
            with collector.paused():
                from ptxlint.engine import instantiate

                self.rules = instantiate(self.rule_classes)
        return self.rules

    def start_early(self, paths: Sequence[str], walk: Callable[..., Discovery]) -> None:
        """Before discovery reads the files one by one: the C++ files of ``PART_BYTES`` or
        more (``file_parts``), met by a walk that only takes the files' sizes, are read and
        handed to the pool the moment the walk meets them, in parts where they are worth
        cutting (else as one part). Met in discovery order, CUTLASS's GMMA headers reached the
        pool 0.57 s into a run over the CUDA headers and CUTLASS at -j 16 (the CUDA tree,
        named first, was read before them), and they were the last to end. Handed over
        once the walk had ended instead, 0.23-0.33 s into the run, the run took as long
        within the host's noise (three rounds: 1.57-1.83 s against 1.60-1.85 s); met at about
        70% of the walk, they reach the workers sooner where the walk is slow.
        A file that discovery then does not admit (a nested configuration excludes it), or
        whose result the cache holds, or that changed since, has its parts' outcomes dropped.
        A file whose stat the result cache's index knows is not started early: its result
        may be there.

        The workers themselves start during the walk, once it has met ``EARLY_START_BYTES``
        in at least as many files as workers, of files the index holds no record of (any,
        without the cache), rather than after it and the reading of the big files: their
        start-up (an interpreter each, the engine and the rules: 0.07-0.1 s each with 16
        starting at once) then overlaps the walk (0.09-0.15 s over the CUDA headers and
        CUTLASS in a git checkout). Over those trees at -j 16 on the 16-core host, in four
        rounds: the first job began 0.20-0.29 s into the run against 0.28-0.41 s, which took
        1.74-1.84 s against 1.85-2.06 s. The price, where those bytes hold no asm: the
        workers were started for nothing, and the run's end waits for each to finish its
        start-up and exit."""
        feed = self.feed
        if feed is None or self.tier2.wanted \
                or feed.workers < 2 * file_parts.WORKERS_PER_PART:
            return
        recorded = self.index.files if self.index is not None else {}
        unknown, files = 0, 0

        def size_of(path: str, max_file_size: int) -> str | None:
            nonlocal unknown, files
            try:
                size = os.stat(path).st_size
            except OSError:
                return None  # what cannot be read is discovery's to report
            if not feed.started and (not recorded or os.path.abspath(path) not in recorded):
                unknown += size
                files += 1
                # as many files as workers, as the pool asks of the jobs it holds: one big
                # file (linted in at most a quarter as many parts) starts no idle workers
                if unknown >= EARLY_START_BYTES and files >= feed.workers:
                    feed.start_now()
            if size >= file_parts.PART_BYTES and file_parts.cxx(path):
                self._start_big(path, feed.workers)
            return None

        walk(paths, probe=size_of)

    def _start_big(self, path: str, workers: int) -> None:
        """Hand the big file ``path`` to the pool now, unless its result may be in the cache,
        a nested configuration excludes it, or it holds no asm keyword."""
        if self.index is not None and self.index.known(os.path.abspath(path)) is not None:
            return
        if self._excluded(path):
            return
        data, _, _ = read_bytes_stat(path, self.config.max_file_size)
        if data is None or not prefilter.has_keyword(path, data):
            return
        keywords = prefilter.keyword_count(path, data)
        count = file_parts.parts(path, data, workers, keywords)  # 1: whole, as one part
        split = self.early[path] = file_parts.Split(path, data, count, None, None)
        self._split(split, -len(self.early), keywords)  # its place in the run is not known yet

    def _split(self, split: file_parts.Split, index: int, keywords: int) -> None:
        """Hand ``split``'s parts to the pool, as jobs of ``index``; ``keywords``: the file's
        front end keywords."""
        assert self.feed is not None
        self.splits[index] = split
        count = len(split.outcomes)
        size = file_parts.part_size(len(split.data), count)
        cost = file_parts.part_size(job_cost(split.data, keywords), count)
        for part in range(count):
            self.feed.add(_Job(index, split.path, size, None, part=part, parts=count, cost=cost))

    def _place(self, split: file_parts.Split, position: int, key: str | None) -> None:
        """Discovery met ``split``'s file, started early, at ``position``."""
        split.position, split.key = position, key
        if split.result is not None:
            self._settled(split)

    def _settled(self, split: file_parts.Split) -> None:
        assert split.result is not None and split.position is not None
        if self.cache is not None and split.key is not None:
            _store(self.cache, split.key, split.result)
        self._done(split.position, split.result)

    def _arrived(self, job: _Job, outcome: FileOutcome) -> None:
        """A job's outcome from the pool: a file's, or one part's, merged with the others here
        once all are in (its result stored here, as a worker stores a whole file's)."""
        if not job.parts:
            self._done(job.index, outcome)
            return
        split = self.splits[job.index]
        if not split.add(job.part, outcome):
            return
        del self.splits[job.index]
        selector, _ = self._settings(job.path)
        split.result = split.merged(self._rules(), selector)
        if split.position is not None:
            self._settled(split)

    def _done(self, position: int, outcome: FileOutcome) -> None:
        self.outcomes[position] = collected(outcome, self.keep_statements)
        self.done += 1
        if self.progress is not None:
            self.progress.update(self.done, len(self.outcomes), walking=self.walking)

    def finish(self) -> None:
        """Every file handed to the pool, linted: there, or here when too few were for
        processes to pay off."""
        self.walking = False
        if self.progress is not None:
            self.progress.update(self.done, len(self.outcomes))
        if self.feed is None:
            return
        drained = self.feed.finish()
        if drained is not None:
            for job, outcome in drained:
                self.sent_keys.append(job.key)
                self._arrived(job, outcome)
            return
        # too little work to be worth starting processes (a warm run: none at all, and the
        # engine is never imported)
        held = sorted(self.feed.held(), key=lambda j: j.index)
        if not held:
            return
        rules = self._rules()
        session = self.tier2.session()
        for job in held:
            if job.parts:  # no pool to share it: linted whole, once
                split = self.splits.pop(job.index, None)
                if split is None or split.position is None:
                    continue  # its other parts' job, or a file started early and not met
                job = _Job(split.position, job.path, len(split.data), split.key)
            file_selector, file_context = self._settings(job.path)
            outcome = _lint_job(job, rules, file_context, file_selector,
                                self.config.max_file_size, session, self.cache, self.count_types)
            self._done(job.index, outcome)
