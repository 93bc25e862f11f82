"""Running at scale: everything between the paths a user names and one file's lint.

``discover`` walks the paths (``.gitignore``-aware) and reads each file; ``prefilter`` is the
byte test for "can hold asm"; ``runner`` takes each file as discovery finds it (from the
``cache``, linted here, or handed to the process ``pool``); ``file_index``, ``include_graph``
and ``statement_pickle`` key and store results; ``packed_source``, ``progress`` and
``orphan_guard`` are the memory policy, the progress line and the workers' tie to their parent.
Each speed piece states in its docstring what it buys, measured.

Nothing below this package (front ends, analysis, rules, report) imports it.
"""
