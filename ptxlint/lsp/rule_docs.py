"""Where a diagnostic's ``codeDescription.href`` points, and the rule documentation itself.

* ``PTXLINT_RULE_DOCS_URL`` in the server's environment, or the ``ruleDocsUrl``
  initialization option, is a URL template with ``{id}`` and ``{name}`` placeholders, e.g.
  ``https://example.org/ptxlint/rules/{id}.html``; the word ``file`` asks for the offline pages
  below for every rule;
* by default a built-in rule links to its page on the documentation site
  (``ptxlint.project.rule_help_uri``, the link SARIF gives too);
* a plugin's rule, which has no page there, links to a page the server writes -- the same text
  ``ptxlint rule ID`` prints -- as Markdown to ``rules/<version>/<ID>.md`` in ptxlint's cache
  folder (``ptxlint.run.cache``; ``PTXLINT_CACHE_DIR`` moves it), as a ``file://`` URI that works
  offline and always matches the installed rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from ptxlint import __version__
from ptxlint.project import is_builtin, rule_help_uri
from ptxlint.rule import Rule
from ptxlint.run.cache import usable_root, write_quietly

ENV_VAR = "PTXLINT_RULE_DOCS_URL"
OFFLINE = "file"  # the template value that asks for the written pages for every rule


def render(rule: type[Rule]) -> str:
    """A rule's page, as ``ptxlint rule ID`` prints it."""
    head = f"# {rule.id} {rule.name}\n\nDefault severity: {rule.severity.value}\n\n"
    return head + rule.docs.strip() + "\n"


def cache_folder() -> Path | None:
    """Where the pages are written: under ptxlint's one cache folder (``PTXLINT_CACHE_DIR``,
    else the user cache folder), so that ``ptxlint clean`` removes them too; None where no
    cache folder can be named."""
    root = usable_root()
    return None if root is None else root / "rules" / __version__


class RuleDocs:
    """Links to, and Markdown of, the loaded rules' documentation."""

    def __init__(self, rules: dict[str, type[Rule]], url_template: str | None = None) -> None:
        self.rules = rules
        self.url_template = url_template or os.environ.get(ENV_VAR) or None
        self._written: dict[str, str | None] = {}

    def markdown(self, rule_id: str) -> str | None:
        rule = self.rules.get(rule_id)
        return render(rule) if rule else None

    def href(self, rule_id: str) -> str | None:
        rule = self.rules.get(rule_id)
        if rule is None:
            return None
        if self.url_template and self.url_template != OFFLINE:
            return self.url_template.replace("{id}", rule.id).replace("{name}", rule.name)
        if self.url_template is None and is_builtin(rule):
            return rule_help_uri(rule.id)
        if rule_id not in self._written:
            self._written[rule_id] = self._write_page(rule)
        return self._written[rule_id]

    def _write_page(self, rule: type[Rule]) -> str | None:
        """Write the page if it is missing or stale; ``None`` when the cache is not writable."""
        folder = cache_folder()
        if folder is None:
            return None
        page = folder / f"{rule.id}.md"
        text = render(rule)
        try:
            current = page.read_text(encoding="utf-8") if page.is_file() else None
        except OSError:
            current = None
        # whole or not at all: two servers starting together never see half a page
        if current != text and not write_quietly(page, text.encode("utf-8")):
            return None
        return page.as_uri()
