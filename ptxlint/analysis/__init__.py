"""The facts rules share, computed once per statement and read by every rule.

``analysis_of(statement)`` (:mod:`ptxlint.analysis.statement`) is the entry: guards and the
targets they admit (:mod:`.guards`, a header's include guard recognised by
:mod:`.include_guard`), the grammar's verdicts, and the root causes of defects
(:mod:`.roots`) that let one finding speak for a defect while the rules that would echo it stay
silent. This package imports the model, ``ptxlint.ptx`` and the front ends' data, never a rule.

Nothing is imported here: ``ptxlint.file_traits`` reads :mod:`.include_guard` and is read by
:mod:`.statement` in turn.
"""
