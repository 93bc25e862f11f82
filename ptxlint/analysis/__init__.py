"""The facts rules share, computed once per statement and read by every rule.

``analysis_of(statement)`` (:mod:`ptxlint.analysis.statement`) is the entry: guards and the
targets they admit (:mod:`.guards`, a header's include guard recognised by
:mod:`.include_guard`), the grammar's verdicts, and the root causes of defects
(:mod:`.roots`) that let one finding speak for a defect while the rules that would echo it stay
silent. This package imports the model, ``ptxlint.ptx`` and the front ends' data, never a rule.

Facts beside the statement's own: whether a statement reaches any build of its file
(:mod:`.latent`: a dead ``#if`` branch, a template nothing instantiates, a helper nothing
calls; the engine marks the findings), where a Python asm call sits and whether an argument
is a compile-time constant (:mod:`.placement`), the carry flag through a template
(:mod:`.carry`), the C++ elements a memory vector is bound to (:mod:`.vector_order`), the
element format a reinterpreted value carries into an instruction (:mod:`.element_types`), and
the bytes an access moves against the object it addresses (:mod:`.access_width`).

Nothing is imported here: ``ptxlint.file_traits`` reads :mod:`.include_guard` and is read by
:mod:`.statement` in turn.
"""
