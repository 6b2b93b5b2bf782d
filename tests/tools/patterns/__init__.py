# tools.spec is imported first: `import tools.patterns` alone in a fresh interpreter hits a circular
# import (tools.patterns.model -> tools.spec -> tools.spec.model -> tools.patterns.model); see
# test_patterns_spec.py::test_tools_patterns_imports_on_its_own, which shows the bug.
import tools.spec  # noqa: F401
