"""The documentation site: mkdocs builds docs/ strictly, every rule's page is there, and the
links ptxlint hands out (SARIF's helpUri, ``ptxlint rule`` JSON, the language server's
codeDescription) land on those pages. The editor guide covers Python buffers everywhere."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ptxlint.project import DOCS_URL, REPOSITORY_URL, is_builtin, rule_help_uri
from ptxlint.registry import load_rules

ROOT = Path(__file__).resolve().parent.parent
EDITORS = ROOT / "docs" / "editors.md"


def _mkdocs_config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_site_url_is_where_the_links_point() -> None:
    config = _mkdocs_config()
    assert config["site_url"] == DOCS_URL and config["repo_url"] == REPOSITORY_URL
    assert config["theme"]["name"] == "material" and config["strict"] is True
    for rule in load_rules().rules:
        if is_builtin(rule):
            assert rule_help_uri(rule.id) == f"{DOCS_URL}rules/{rule.id}/"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None
                    or importlib.util.find_spec("material") is None,
                    reason="mkdocs-material is not installed (pip install -e '.[docs]')")
def test_site_builds_strictly_and_every_rule_link_lands_on_a_page(tmp_path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index.html", "configuration/index.html", "editors/index.html",
                 "rules/index.html"):
        assert (site / page).is_file(), page
    rules = [r for r in load_rules().rules if is_builtin(r)]
    for rule in rules:
        url = rule_help_uri(rule.id)
        page = site / url.removeprefix(DOCS_URL) / "index.html"
        assert page.is_file(), f"{url} has no page in the site"
        assert rule.name in page.read_text(encoding="utf-8")
    assert "dev-notes" not in {p.name for p in site.iterdir()}


def test_language_server_links_built_in_rules_to_the_site(monkeypatch) -> None:
    pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")
    from ptxlint.lsp.rule_docs import RuleDocs

    monkeypatch.delenv("PTXLINT_RULE_DOCS_URL", raising=False)
    rules = {r.id: r for r in load_rules().rules}
    assert RuleDocs(rules).href("PTX101") == rule_help_uri("PTX101")
    offline = RuleDocs(rules, "file").href("PTX101")
    assert offline is None or offline.startswith("file://")
    assert RuleDocs(rules, "https://x.example/{name}").href("PTX101") == (
        "https://x.example/missing-volatile")


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match is not None, title
    return match.group(1)


def test_editor_guide_covers_python_buffers_in_every_editor() -> None:
    text = EDITORS.read_text(encoding="utf-8")
    neovim = _section(text, "Neovim")
    assert 'vim.lsp.config("ptxlint"' in neovim and 'vim.lsp.enable("ptxlint")' in neovim
    assert 'filetypes = { "cuda", "cpp", "c", "python" }' in neovim
    assert 'require("lspconfig")' not in text.replace('require("lspconfig").<server>', "")
    assert 'name = "python"' in _section(text, "Helix")
    assert "python-mode" in _section(text, "Emacs (eglot)")
    vscode = _section(text, "VS Code")
    link = f"{REPOSITORY_URL}/blob/main/editors/vscode/README.md"
    assert link in vscode
    assert (ROOT / "editors" / "vscode" / "README.md").is_file()
