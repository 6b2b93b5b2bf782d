"""The describe package's user error, in a module light enough for the CLI to import at start-up."""


class DescriptionError(ValueError):
    """The description names nothing chronoeval can model (blank, or no entity and no quantity)."""
