"""PTX knowledge: the template parser and the instruction table."""
