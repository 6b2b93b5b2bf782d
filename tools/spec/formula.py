"""A tiny, safe arithmetic language for derived measurements (``attempts - successes``).

Only numbers, names, ``+ - * / // % **``, unary minus and a few numpy functions are allowed;
anything else is rejected when the spec is validated, never at generation time.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import numpy as np

FUNCTIONS = {
    "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil,
    "round": np.rint, "min": np.minimum, "max": np.maximum, "clip": np.clip,
}
_BINOPS = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
    ast.FloorDiv: np.floor_divide, ast.Mod: np.mod, ast.Pow: np.power,
}


MAX_FORMULA_CHARS = 1000
MAX_FORMULA_NODES = 400
MAX_FORMULA_DEPTH = 40


def _depth(tree: ast.AST) -> int:
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        todo += [(c, d + 1) for c in ast.iter_child_nodes(node)]
    return deepest


def parse_formula(text: str) -> ast.expr:
    """Parse and vet a formula; raises ValueError naming the offending part. Formulas are limited to
    ``MAX_FORMULA_CHARS`` characters, ``MAX_FORMULA_NODES`` syntax nodes and ``MAX_FORMULA_DEPTH`` levels."""
    short = text if len(text) <= 60 else text[:57] + "..."
    if len(text) > MAX_FORMULA_CHARS:
        raise ValueError(f"formula '{short}' is {len(text):,} characters long; formulas are limited to "
                         f"{MAX_FORMULA_CHARS} (derive intermediate hidden measurements instead)")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"formula '{short}' is not valid arithmetic ({exc.msg})") from exc
    except (RecursionError, MemoryError):
        raise ValueError(f"formula '{short}' is nested too deeply; simplify it") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_FORMULA_NODES or _depth(tree) > MAX_FORMULA_DEPTH:
        raise ValueError(f"formula '{short}' has more than {MAX_FORMULA_NODES} terms or {MAX_FORMULA_DEPTH} levels "
                         "of nesting; split it into hidden intermediate measurements")
    for node in ast.walk(tree):
        ok = isinstance(node, ast.BinOp | ast.UnaryOp | ast.Name | ast.Constant | ast.Call | ast.Load
                        | ast.operator | ast.unaryop)
        if isinstance(node, ast.BinOp) and type(node.op) not in _BINOPS:
            ok = False
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.USub | ast.UAdd):
            ok = False
        if isinstance(node, ast.Constant) and not isinstance(node.value, int | float):
            ok = False
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
                                               and not node.keywords):
            ok = False
        if not ok:
            raise ValueError(f"formula '{text}' uses '{ast.unparse(node)}'; only arithmetic, numbers, names "
                             f"and {', '.join(sorted(FUNCTIONS))} are allowed")
    return tree


def formula_names(text: str) -> set[str]:
    """The variable names a formula reads (function names excluded)."""
    tree = parse_formula(text)
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in funcs}


def evaluate_formula(text: str, env: Mapping[str, np.ndarray | float]) -> np.ndarray:
    """Evaluate a vetted formula over numpy arrays (broadcasting as numpy does)."""

    def ev(node: ast.expr):
        match node:
            case ast.Constant(value=v):
                return float(v)
            case ast.Name(id=name):
                return env[name]
            case ast.UnaryOp(op=ast.USub(), operand=x):
                return -ev(x)
            case ast.UnaryOp(operand=x):
                return ev(x)
            case ast.BinOp(left=a, op=op, right=b):
                with np.errstate(divide="ignore", invalid="ignore"):
                    return _BINOPS[type(op)](ev(a), ev(b))
            case ast.Call(func=ast.Name(id=f), args=args):
                return FUNCTIONS[f](*[ev(a) for a in args])
        raise ValueError(f"unsupported formula node {ast.unparse(node)}")

    return np.asarray(ev(parse_formula(text)), dtype=float)
