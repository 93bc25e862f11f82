"""Where the project lives: the one place that names its repository and documentation URLs.

SARIF's ``informationUri`` names the repository; every rule's ``helpUri`` (SARIF, rdjson,
``ptxlint rule --output-format json``) and the language server's ``codeDescription`` link point
at the rule's page on the documentation site, never at a file in the user's environment. The
site is built from ``docs/`` by mkdocs (``mkdocs.yml``; CI builds it and publishes it to GitHub
Pages from main): ``docs/rules/<ID>.md``, generated from the rules' own docs
(``scripts/gen_rule_docs.py``), becomes ``rules/<ID>/`` under ``DOCS_URL``, and a test builds
the site and checks that every rule's link lands on a page. pyproject.toml's
``[project.urls]`` names the same repository (a test checks that too).
"""

from __future__ import annotations

REPOSITORY_URL = "https://github.com/ptxlint/ptxlint"
DOCS_BRANCH = "main"
RULE_DOCS_DIR = "docs/rules"
# The documentation site's base URL, mkdocs.yml's site_url: GitHub Pages of the repository.
DOCS_URL = "https://ptxlint.github.io/ptxlint/"


def rule_doc_path(rule_id: str) -> str:
    """The rule's documentation page, relative to the repository root."""
    return f"{RULE_DOCS_DIR}/{rule_id}.md"


def rule_help_uri(rule_id: str) -> str:
    """The rule's page on the documentation site (mkdocs' directory URLs: ``rules/PTX101/``)."""
    return f"{DOCS_URL}rules/{rule_id}/"


def is_builtin(rule: type) -> bool:
    """A built-in rule (documented in this repository), not a third-party plugin's."""
    return rule.__module__.split(".", 1)[0] == "ptxlint_rules"
