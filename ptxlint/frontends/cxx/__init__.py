"""The C++/CUDA front end: source text in, :class:`~ptxlint.model.AsmStatement`\\ s out.

A one-way pipeline of four stages; a module imports only modules of its own stage or of the
stages before it (``tests/test_import_graph.py`` holds this):

1. preprocess: ``lexer`` (tokens; the multi-line block comments and raw strings that hide a
   line from the directive scanners; a file's directive lines), ``preproc`` (three-valued
   ``#if``), ``guards`` (the conditions around each line),
   ``defines`` (one file's ``#define``\\ s), ``include_lookup`` (where an include finds its
   header), ``headers`` (reading and caching included headers, the closure of a file's),
   ``macros`` (the table and expansion with a source map), ``companion`` (the header a
   header is the second half of, whose macros it reads), ``specifier_macros`` (the macros
   that expand to declaration specifiers only, to namespace openings or closings, to an input
   constraint, to string literals or to a block of their arguments, which the parse may leave
   out),
   ``guard_macros``, ``macro_uses``,
   ``branches`` (a statement with ``#if`` inside it);
2. locate: ``dialect`` and ``host_code`` (host assembly recognised and left alone),
   ``statement_tokens`` (one statement's tokens from its keyword), ``function_recovery``
   (the function around a statement the tree shows in none, read from the text),
   ``statement_context`` (the function, declaration or macro around it), ``function_spans``
   and ``part_tree``
   (a part of a file linted in parts parses only the functions it reads);
3. read the statement: ``statement_reader`` (template pieces with a source map, operands,
   clobbers; a macro piece is an opaque hole unless resolved exactly), ``plain_reader`` (its
   regular-expression fast path), ``raw_statement`` (what both read), ``operand_types`` (the
   operands' types, left to work out when a rule first reads one), ``keyword_macro_bodies``
   (a macro standing for the keyword begins statements, in code and in other macros'
   bodies), and ``extract``, which
   finds every statement of a file and drives the rest;
4. type the operands: ``c_types``, ``declaration_index``, ``declared_types`` (what a type
   specifier and a declarator name), ``header_types`` (the types a file names and its
   project headers define), ``macro_operands`` (a macro invocation typed as its
   expansion), ``scope_lookup``, ``expression_types`` and ``types``
   (Tier 1, syntactic; Tier 2 is :mod:`ptxlint.tier2`).

The public entry is :func:`ptxlint.frontends.cxx.extract.extract`; other front ends (CUDA C++
held in Python strings) call it and nothing else here.
"""
