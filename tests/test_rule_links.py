"""Links a report hands out resolve to this repository's docs: SARIF's informationUri and each
rule's helpUri, ``ptxlint rule --all --output-format json``'s urls, rdjson's code urls. A rule's
link is its page on the documentation site, built from docs/rules/<ID>.md (tests/test_docs_site.py
builds the site and follows the links)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ptxlint.cli import main
from ptxlint.project import DOCS_URL, REPOSITORY_URL, rule_help_uri
from ptxlint.registry import load_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import gen_rule_docs  # noqa: E402


def _local(url: str) -> Path:
    """The Markdown source of a site or repository URL."""
    if url.startswith(DOCS_URL):
        page = url[len(DOCS_URL):]
        assert page.endswith("/"), url  # mkdocs' directory URLs
        return ROOT / "docs" / f"{page.rstrip('/')}.md"
    prefix = f"{REPOSITORY_URL}/blob/main/"
    assert url.startswith(prefix), url
    return ROOT / url[len(prefix):]


def test_every_rule_has_its_page() -> None:
    # Existence and title only: a rule's wording may change in a commit that forgets to
    # regenerate, and that must not fail everyone's tests; a new rule without a page must.
    for path, text in gen_rule_docs.expected_pages().items():
        assert path.is_file(), f"{path} missing: run python scripts/gen_rule_docs.py"
        assert path.read_text(encoding="utf-8").splitlines()[0] == text.splitlines()[0]


def test_pyproject_names_the_same_repository() -> None:
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Repository"] == REPOSITORY_URL
    assert urls["Documentation"] == DOCS_URL
    for url in urls.values():
        if url.startswith(REPOSITORY_URL + "/blob/"):
            assert _local(url).is_file(), url
        if url.startswith(DOCS_URL) and url != DOCS_URL:
            assert _local(url).is_file() or (_local(url).with_suffix("") / "README.md").is_file()


def test_sarif_links_and_category(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    main(["check", "fixtures/example", "--no-progress", "--output-format", "sarif",
          "--sarif-category", "cuda-kernels"])
    run = json.loads(capsys.readouterr().out)["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["informationUri"] == REPOSITORY_URL
    assert run["automationDetails"] == {"id": "cuda-kernels/"}
    for rule in driver["rules"]:
        assert rule["helpUri"] == rule_help_uri(rule["id"])
        assert _local(rule["helpUri"]).is_file()


def test_sarif_without_category_has_no_automation_details(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    main(["check", "fixtures/example", "--no-progress", "--format", "sarif"])
    assert "automationDetails" not in json.loads(capsys.readouterr().out)["runs"][0]


def test_rule_all_json(capsys) -> None:
    assert main(["rule", "--all", "--output-format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["code"] for r in listed] == [r.id for r in load_rules().rules]
    for entry in listed:
        assert entry["explanation"].startswith("## What it does")
        assert _local(entry["url"]).is_file()
    assert main(["rule", "PTX101", "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["name"] == "missing-volatile"
    assert main(["rule"]) == 2
