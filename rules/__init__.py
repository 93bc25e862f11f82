"""ptxlint's built-in rules, registered through the ``ptxlint.rules`` entry point."""

from rules.ptx001_operand_index import OperandIndexOutOfRange
from rules.ptx003_multiple_letters import MultipleConstraintLetters
from rules.ptx006_constraint_modifier import BadConstraintModifier
from rules.ptx007_operand_modifier import UnsupportedOperandModifier
from rules.ptx008_percent_escape import PercentEscape
from rules.ptx203_unbalanced_braces import UnbalancedBraces

BUILTIN_RULES = (
    OperandIndexOutOfRange,
    MultipleConstraintLetters,
    BadConstraintModifier,
    UnsupportedOperandModifier,
    PercentEscape,
    UnbalancedBraces,
)

__all__ = ["BUILTIN_RULES"]
