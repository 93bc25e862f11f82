#!/usr/bin/env python3
"""Fetch real-code corpora (PyPI source distributions) for ptxlint tests and benchmarks.

Usage::

    python scripts/fetch_corpora.py DEST [NAME[==VERSION] ...]
        [--index-url URL] [--no-pip] [--pip-timeout SECONDS]

For each NAME (default: flash-attn vllm llama-cpp-python flashinfer-python):

1. If ``DEST/src/NAME/`` already exists and is not empty, nothing is done.
2. If ``DEST/sdist/`` already holds an sdist of NAME (matching VERSION when one
   is pinned), it is reused.
3. Otherwise ``pip download --no-deps --no-binary :all: NAME -d DEST/sdist`` is
   tried (unless ``--no-pip``).  pip has to build the package metadata for
   that, which fails or takes very long for several CUDA projects (flash-attn
   fails, vllm wants a torch to build against, flashinfer builds for minutes),
   so on failure or timeout the sdist is taken straight from the index's
   "simple" page (PEP 503): the highest non-yanked, non-pre-release version
   with a ``.tar.gz`` file (or the pinned VERSION), checked against the
   page's sha256 fragment.
4. The sdist is unpacked into ``DEST/src/NAME/``; its single top-level folder
   (``name-version/``) is stripped.

``DEST/manifest.json`` records, per name, the sdist file, its sha256 and how
it was obtained.  Standard library only; the only network access is pip's and
one HTTP(S) GET of the simple page plus one of the file.

The index URL is, in order: ``--index-url``, ``$PIP_INDEX_URL``,
``pip config get global.index-url``, ``https://pypi.org/simple``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import html.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

DEFAULT_NAMES = ["flash-attn", "vllm", "llama-cpp-python", "flashinfer-python"]
DEFAULT_INDEX = "https://pypi.org/simple"
SDIST_EXTS = (".tar.gz", ".zip")


def normalize(name: str) -> str:
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def log(msg: str) -> None:
    print(f"[fetch_corpora] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- versions

_VERSION_RE = re.compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n>\d*))|-(?P<post_n2>\d+))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev_n>\d*))?"
    r"(?:\+(?P<local>[a-z0-9.]+))?$",
    re.IGNORECASE,
)
_PRE_ORDER = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def version_key(version: str) -> tuple | None:
    """A sort key for a PEP 440 version, or None if it does not parse."""
    m = _VERSION_RE.match(version.strip())
    if not m:
        return None
    release = tuple(int(x) for x in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    inf = float("inf")
    if m["pre_l"]:
        pre = (_PRE_ORDER[m["pre_l"].lower()], int(m["pre_n"] or 0))
    elif m["dev_n"] is not None and not m["post_l"] and m["post_n2"] is None:
        pre = (-1, 0)  # 1.0.dev1 sorts before 1.0a1
    else:
        pre = (inf, 0)
    if m["post_l"]:
        post = int(m["post_n"] or 0)
    elif m["post_n2"] is not None:
        post = int(m["post_n2"])
    else:
        post = -1
    dev = int(m["dev_n"] or 0) if m["dev_n"] is not None else inf
    return (release, pre, post, dev)


def is_prerelease(version: str) -> bool:
    m = _VERSION_RE.match(version.strip())
    return bool(m and (m["pre_l"] or m["dev_n"] is not None))


def sdist_version(filename: str, name: str) -> str | None:
    """Version part of an sdist file name of project `name`, else None."""
    for ext in SDIST_EXTS:
        if filename.lower().endswith(ext):
            stem = filename[: -len(ext)]
            break
    else:
        return None
    # sdist names are "{name}-{version}" with the name's separators in any form.
    parts = stem.split("-")
    for i in range(1, len(parts)):
        if normalize("-".join(parts[:i])) == normalize(name):
            return "-".join(parts[i:])
    return None


# --------------------------------------------------------------------------- index

def index_url(cli_value: str | None) -> str:
    if cli_value:
        return cli_value.rstrip("/")
    env = os.environ.get("PIP_INDEX_URL")
    if env:
        return env.split()[0].rstrip("/")
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "config", "get", "global.index-url"],
            capture_output=True, text=True, timeout=60,
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().split()[0].rstrip("/")
    except (OSError, subprocess.TimeoutExpired):
        pass
    return DEFAULT_INDEX


class _LinkParser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, dict]] = []  # (href, text, attrs)
        self._cur: dict | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._cur = dict(attrs)
            self._text = []

    def handle_data(self, data):
        if self._cur is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._cur is not None:
            self.links.append((self._cur.get("href", ""), "".join(self._text).strip(), self._cur))
            self._cur = None


def fetch_bytes(url: str, timeout: float = 300) -> bytes:
    req = urllib.request.Request(url, headers={"User-Agent": "ptxlint-fetch-corpora"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.read()


def pick_from_index(index: str, name: str, version: str | None) -> tuple[str, str, str | None]:
    """(url, filename, sha256 or None) of the sdist to use, from the simple page."""
    page_url = f"{index}/{normalize(name)}/"
    log(f"reading {page_url}")
    parser = _LinkParser()
    parser.feed(fetch_bytes(page_url, timeout=120).decode("utf-8", "replace"))
    candidates = []
    for href, text, attrs in parser.links:
        url = urllib.parse.urljoin(page_url, href)
        filename = urllib.parse.unquote(urllib.parse.urlparse(url).path.rsplit("/", 1)[-1]) or text
        if not filename.endswith(".tar.gz") or "data-yanked" in attrs:
            continue
        ver = sdist_version(filename, name)
        if ver is None:
            continue
        key = version_key(ver)
        if key is None:
            continue
        if version is not None:
            if version_key(version) != key:
                continue
        elif is_prerelease(ver):
            continue
        frag = urllib.parse.urlparse(url).fragment
        sha = frag.split("=", 1)[1] if frag.startswith("sha256=") else None
        candidates.append((key, urllib.parse.urldefrag(url)[0], filename, sha))
    if not candidates:
        pin = f"=={version}" if version else ""
        raise RuntimeError(f"no .tar.gz sdist of {name}{pin} on {page_url}")
    candidates.sort(key=lambda c: c[0])
    _, url, filename, sha = candidates[-1]
    return url, filename, sha


def download_direct(index: str, name: str, version: str | None, sdist_dir: Path) -> Path:
    url, filename, sha = pick_from_index(index, name, version)
    target = sdist_dir / filename
    if target.exists() and (sha is None or sha256(target) == sha):
        return target
    log(f"downloading {url}")
    data = fetch_bytes(url)
    if sha is not None and hashlib.sha256(data).hexdigest() != sha:
        raise RuntimeError(f"sha256 mismatch for {url}")
    tmp = target.with_name(target.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return target


def download_pip(name: str, version: str | None, sdist_dir: Path, timeout: float) -> Path | None:
    spec = f"{name}=={version}" if version else name
    before = set(sdist_dir.iterdir())
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
           spec, "-d", str(sdist_dir)]
    log("running " + " ".join(cmd))
    # Own process group, so that a timeout also ends pip's build subprocesses.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        log(f"pip download {spec} timed out after {timeout:.0f}s")
        return None
    finally:
        with contextlib.suppress(ProcessLookupError):  # build backends may leave children
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode != 0:
        log(f"pip download {spec} failed (exit {proc.returncode})")
        return None
    m = re.findall(r"^(?:Saved|File was already downloaded) (.+)$", stdout, re.MULTILINE)
    if m:
        path = Path(m[-1].strip())
        if not path.is_absolute():
            path = (sdist_dir / path).resolve() if not path.exists() else path.resolve()
        if path.exists():
            return path
    new = [p for p in set(sdist_dir.iterdir()) - before if sdist_version(p.name, name)]
    return new[0] if len(new) == 1 else find_existing_sdist(sdist_dir, name, version)


def find_existing_sdist(sdist_dir: Path, name: str, version: str | None) -> Path | None:
    found = []
    for p in sdist_dir.iterdir():
        ver = sdist_version(p.name, name)
        if ver is None or version_key(ver) is None:
            continue
        if version is not None and version_key(ver) != version_key(version):
            continue
        found.append((version_key(ver), p))
    if not found:
        return None
    found.sort(key=lambda f: f[0])
    return found[-1][1]


# --------------------------------------------------------------------------- unpack

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def unpack(archive: Path, dest: Path) -> None:
    """Unpack `archive` into `dest`, stripping a single top-level folder."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{dest.name}.") as tmp:
        tmpdir = Path(tmp)
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                for member in zf.namelist():
                    target = (tmpdir / member).resolve()
                    if not str(target).startswith(str(tmpdir.resolve()) + os.sep):
                        raise RuntimeError(f"unsafe path in {archive}: {member}")
                zf.extractall(tmpdir)
        else:
            with tarfile.open(archive) as tf:
                if hasattr(tarfile, "data_filter"):
                    tf.extractall(tmpdir, filter="data")
                else:  # Python < 3.11.4: refuse absolute / parent paths and links outside
                    for member in tf.getmembers():
                        if member.name.startswith("/") or ".." in Path(member.name).parts:
                            raise RuntimeError(f"unsafe path in {archive}: {member.name}")
                    tf.extractall(tmpdir)
        entries = list(tmpdir.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else tmpdir
        if dest.exists():
            shutil.rmtree(dest)
        if root is tmpdir:
            shutil.move(str(tmpdir), str(dest))
            tmpdir.mkdir()  # so that TemporaryDirectory's cleanup finds it
        else:
            shutil.move(str(root), str(dest))


# --------------------------------------------------------------------------- main

def fetch_one(spec: str, dest: Path, index: str, use_pip: bool, pip_timeout: float,
              manifest: dict) -> None:
    name, _, version = spec.partition("==")
    name, version = name.strip(), (version.strip() or None)
    sdist_dir = dest / "sdist"
    src_dir = dest / "src" / name
    sdist_dir.mkdir(parents=True, exist_ok=True)
    if src_dir.is_dir() and any(src_dir.iterdir()):
        log(f"{name}: {src_dir} exists, skipping")
        return
    how = "existing"
    archive = find_existing_sdist(sdist_dir, name, version)
    if archive is None and use_pip:
        archive = download_pip(name, version, sdist_dir, pip_timeout)
        how = "pip download"
    if archive is None:
        archive = download_direct(index, name, version, sdist_dir)
        how = f"simple index {index}"
    log(f"{name}: unpacking {archive.name} into {src_dir}")
    unpack(archive, src_dir)
    manifest[name] = {"sdist": archive.name, "sha256": sha256(archive), "obtained_by": how}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest", type=Path, help="destination folder (gets sdist/ and src/NAME/)")
    ap.add_argument("names", nargs="*", default=DEFAULT_NAMES,
                    help="project names, optionally NAME==VERSION "
                    f"(default: {' '.join(DEFAULT_NAMES)})")
    ap.add_argument("--index-url", help="simple index URL (default: pip's)")
    ap.add_argument("--no-pip", action="store_true",
                    help="skip `pip download`, take sdists straight from the simple index")
    ap.add_argument("--pip-timeout", type=float, default=300,
                    help="seconds to give `pip download` before falling back (default 300)")
    args = ap.parse_args(argv)

    dest = args.dest.resolve()
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    index = index_url(args.index_url)
    failures = 0
    for spec in args.names:
        try:
            fetch_one(spec, dest, index, not args.no_pip, args.pip_timeout, manifest)
        except Exception as exc:  # keep going with the other names
            log(f"{spec}: FAILED: {exc}")
            failures += 1
        manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
