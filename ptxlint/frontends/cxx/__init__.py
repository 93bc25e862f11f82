"""The C++/CUDA front end: source text in, :class:`~ptxlint.model.AsmStatement`\\ s out.

A one-way pipeline; each module imports only the modules of the stages before it
(``tests/test_import_graph.py`` holds this):

1. preprocess: ``lexer`` (tokens), ``preproc`` (three-valued ``#if``), ``guards`` (the
   conditions around each line), ``macros`` (definitions and expansion with a source map),
   ``guard_macros``, ``macro_uses``, ``branches`` (a statement with ``#if`` inside it);
2. locate: ``dialect`` and ``host_code`` (host assembly recognised and left alone), then
   ``extract`` finds every statement in the tree-sitter tree;
3. read the statement: ``reading_memo`` and ``extract``'s reader (template pieces with a
   source map, operands, clobbers; a macro piece is an opaque hole unless resolved exactly);
4. type the operands: ``types`` (Tier 1, syntactic; Tier 2 is :mod:`ptxlint.tier2`).

The public entry is :func:`ptxlint.frontends.cxx.extract.extract`; other front ends (CUDA C++
held in Python strings) call it and nothing else here.
"""
