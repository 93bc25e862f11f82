"""Where the project lives: the one place that names its repository and documentation URLs.

SARIF's ``informationUri`` and every rule's ``helpUri`` point here, never at a file in the
user's environment; ``docs/rules/<ID>.md`` is generated from the rules' own docs
(``scripts/gen_rule_docs.py``) and a test keeps it in step, so every link resolves.
pyproject.toml's ``[project.urls]`` names the same repository (a test checks that too).
"""

from __future__ import annotations

REPOSITORY_URL = "https://github.com/ptxlint/ptxlint"
DOCS_BRANCH = "main"
RULE_DOCS_DIR = "docs/rules"


def rule_doc_path(rule_id: str) -> str:
    """The rule's documentation page, relative to the repository root."""
    return f"{RULE_DOCS_DIR}/{rule_id}.md"


def rule_help_uri(rule_id: str) -> str:
    return f"{REPOSITORY_URL}/blob/{DOCS_BRANCH}/{rule_doc_path(rule_id)}"


def is_builtin(rule: type) -> bool:
    """A built-in rule (documented in this repository), not a third-party plugin's."""
    return rule.__module__.split(".", 1)[0] == "ptxlint_rules"
