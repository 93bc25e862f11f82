"""What the server announces in its ``initialize`` answer, as JSON.

The full server (pygls, ``server``) registers its features with these options, and the first
answer, given before pygls is loaded (``early``), is built from the same table.
``tests/test_lsp_early.py`` holds the two answers equal for several clients.
"""

from __future__ import annotations

from typing import Any

from ptxlint import __version__

SERVER_NAME = "ptxlint"
FIX_ALL_KIND = "source.fixAll.ptxlint"
CODE_ACTION_KINDS = ("quickfix", FIX_ALL_KIND)
COMPLETION_TRIGGERS = (".",)
INCREMENTAL_SYNC = 2  # the LSP's TextDocumentSyncKind.Incremental
# pygls's position encodings; the client's first one among them is taken, else UTF-16
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def position_encoding(params: dict[str, Any]) -> str:
    """The encoding the server takes for a client's ``initialize`` params (pygls's choice)."""
    capabilities = params.get("capabilities")
    general = capabilities.get("general") if isinstance(capabilities, dict) else None
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if isinstance(offered, list):
        for encoding in offered:
            if encoding in ENCODINGS:
                return str(encoding)
    return "utf-16"


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` answer the full server gives a client that sent ``params``."""
    return {
        "capabilities": {
            "positionEncoding": position_encoding(params),
            "textDocumentSync": {
                "openClose": True,
                "change": INCREMENTAL_SYNC,
                "save": {"includeText": False},
            },
            "completionProvider": {"triggerCharacters": list(COMPLETION_TRIGGERS)},
            "hoverProvider": True,
            "codeActionProvider": {
                "codeActionKinds": list(CODE_ACTION_KINDS),
                "resolveProvider": False,
            },
            "executeCommandProvider": {"commands": []},
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
            },
        },
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }
