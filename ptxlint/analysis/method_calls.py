"""Which of a file's calls of a name may call a member function of a given class: the call
sites value flow (``value_flow``) reads a member function's parameter through, as it reads a
free function's through every call of its name.

By C++'s rules ([class.member.lookup], [basic.lookup.unqual]):

* ``o.f(x)``, ``p->f(x)``, ``this->f(x)`` call ``f`` of the object's class, or of a base of it
  where the class has none: a call whose object is read as another class's that defines ``f``
  itself (``call_classes``: a variable's declared type, ``this`` the calling method's class,
  through the function's aliases) calls that class's; one whose object's class is not read (a
  data member, a call's result), is a template parameter or a class defining no ``f`` (one
  derived from the class, one of another file) may call this one;
* ``C::f(x)`` calls ``C``'s, read the same way (a namespace defines no member function);
* a plain ``f(x)`` finds a member function only from inside a member function: its own
  class's ``f`` where that class has one (it hides a base's), else maybe a base's; outside any
  class it calls a free function.

A call that may reach the member function counts, whatever else it may reach: its argument may
be what the parameter holds. What a call returns is the other way round: only the member
functions it surely calls count (``callees``), those of the object's class, of the class a
qualified call names, or of the calling member function's own class for a plain call, where
that class defines the name; a call through an object whose class is not read, or defines no
such member function in the file, calls one not known here.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.call_classes import CallClasses
from ptxlint.analysis.member_values import class_of
from ptxlint.frontends.syntax_tree import ParsedSource

__all__ = ["MethodCalls"]


class MethodCalls:
    """One file's reading of which calls may reach a class's member function; each calling
    function's classes read once, when first asked."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        self._classes: dict[int, CallClasses] = {}
        self._class_of: dict[int, str | None] = {}  # a definition's class, by node
        self._defining: dict[str, set[str]] = {}  # (``defining``)

    def class_of(self, node: tree_sitter.Node) -> str | None:
        """The class whose member function ``node`` is (``member_values.class_of``)."""
        known = self._class_of.get(node.id, "")
        if known == "":
            known = self._class_of[node.id] = class_of(self.parsed, node)
        return known

    def defining(self, name: str, named: list[tree_sitter.Node]) -> set[str]:
        """The classes of the file's definitions ``named`` of ``name`` ("" for a free
        function's), read once per name."""
        known = self._defining.get(name)
        if known is None:
            known = self._defining[name] = {self.class_of(d) or "" for d in named}
        return known

    def _read(self, call: tree_sitter.Node, caller: tree_sitter.Node, form: str) -> str:
        """The class of member call ``call`` (``form``: ``call_classes``') in ``caller``."""
        classes = self._classes.get(caller.id)
        if classes is None:
            classes = self._classes[caller.id] = CallClasses(
                self.parsed, caller, self.class_of(caller) or ""
            )
        return classes.of_call(call.start_byte, call.end_byte, form)

    def callees(
        self, call: tree_sitter.Node, caller: tree_sitter.Node, named: list[tree_sitter.Node]
    ) -> list[tree_sitter.Node] | None:
        """Of the file's function definitions ``named`` of the name ``call`` calls (with its
        number of arguments), the ones it surely calls where it calls a member function (see
        the module's docstring); None where it calls a free function, as far as the file says
        (a plain call outside a member function, or in one of a class without the name)."""
        function = call.child_by_field_name("function")
        if function is None:
            return None
        defining = {self.class_of(d) for d in named} - {None}
        if function.type in ("field_expression", "qualified_identifier"):
            form = "member" if function.type == "field_expression" else "qualified"
            read = self._read(call, caller, form) if caller.type == "function_definition" else ""
            if read in defining:
                return [d for d in named if self.class_of(d) == read]
            return [] if form == "member" else None
        own = self.class_of(caller)
        if own is not None and own in defining:
            return [d for d in named if self.class_of(d) == own]
        return None

    def may_call(
        self, cls: str, call: tree_sitter.Node, caller: tree_sitter.Node, defining: set[str]
    ) -> bool:
        """Call expression ``call``, in function definition ``caller``, may call a member
        function of class ``cls`` of the name it calls; ``defining``: the classes the file
        defines a member function of that name in ("" for a free function)."""
        function = call.child_by_field_name("function")
        if function is None:
            return False
        own = self.class_of(caller)
        if function.type == "field_expression":
            form = "member"
        elif function.type == "qualified_identifier":
            form = "qualified"
        else:  # `f(x)`, `f<N>(x)`: a member only from a member function's scope
            return own is not None and (own == cls or own not in defining)
        read = self._read(call, caller, form)
        # another class that defines the name calls its own (it hides a base's); a class that
        # does not (a derived class, a template parameter, an alias, one of another file) or
        # one not read may call this one
        return read in ("", cls) or read not in defining
