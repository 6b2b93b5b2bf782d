"""The built-in documents: domain packs chunked per section, entity type, state machine and
measurement group; one document per incident pattern kind and per query template
(knowledge/docs/*.yaml); the persona library (knowledge/personas.yaml when present, and the
packs' personas).

``builtin_fingerprint`` hashes the source files only (no YAML parsing), so a memory can tell
cheaply whether its index is stale.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import yaml

from knowledge.documents import Doc
from knowledge.packs import list_packs, load_pack, pack_dir, pack_path
from knowledge.personas import PERSONAS_FILE

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: `memory list` parses these at start

KNOWLEDGE_DIR = Path(__file__).resolve().parent
DOCS_DIR = KNOWLEDGE_DIR / "docs"


def source_files() -> list[Path]:
    """Every file the built-in documents are made from (packs, docs, personas, this module)."""
    from knowledge.catalog import catalog_files

    files = sorted(pack_dir().glob("*.yaml")) + sorted(DOCS_DIR.glob("*.yaml")) + catalog_files()
    if PERSONAS_FILE.is_file():
        files.append(PERSONAS_FILE)
    return files + [Path(__file__)]


def builtin_fingerprint() -> str:
    """A hash of the built-in documents' sources: it changes when a pack, doc or persona changes."""
    h = hashlib.sha256()
    for f in source_files():
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


_SECTION = re.compile(r"^#\s([A-Z][A-Z /&-]+[A-Z])\b(.*)$")


def header_sections(text: str) -> dict[str, str]:
    """The ``# SECTION`` blocks of a pack's leading comment, as {lower-case name: prose}."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = _SECTION.match(line)
        if m and not line.startswith("#  "):
            current = m.group(1).strip().lower()
            sections[current] = [m.group(2).strip(" ()")] if m.group(2).strip() else []
        elif current and line.startswith("#  "):
            sections[current].append(line[1:].strip())
    return {k: " ".join(v).strip() for k, v in sections.items() if v}


def _attr_text(a) -> str:
    dist = a.dist
    values = getattr(dist, "values", None)
    if isinstance(values, dict):
        return f"{a.name} ({'/'.join(map(str, values))})"
    if getattr(dist, "kind", "") == "foreign_key":
        return f"{a.name} (foreign key to {dist.entity})"
    return a.name + (f" ({a.unit})" if a.unit else "")


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    return text.split(". ")[0].rstrip(".")


def pack_docs(name: str) -> list[Doc]:
    """One pack as chunks: header sections, entity types, state machines, measurement groups,
    shipped incidents and exemplars."""
    path = pack_path(name)
    spec = load_pack(name)
    src = f"knowledge/packs/{path.name}"
    about = f"{name} domain: {_first_sentence(spec.description)}."
    docs: list[Doc] = []

    def add(suffix: str, title: str, text: str, tags: list[str]) -> None:
        docs.append(Doc(id=f"pack:{name}:{suffix}", kind="pack", title=f"{name} pack — {title}",
                        text=f"{about} {text}", domains=[name], tags=[name, *tags], source=src))

    for section, prose in header_sections(path.read_text(encoding="utf-8")).items():
        if section.startswith("chronoeval"):
            continue
        add(f"section:{section.replace(' ', '_')}", section, prose, ["section"])
    for e in spec.entities:
        table = e.table_name or "(no event table)"
        attrs = ", ".join(_attr_text(a) for a in e.attributes) or "none"
        emission = ""
        if e.emission is not None:
            emission = (f" Rows every {e.emission.cadence}." if e.emission.kind == "periodic"
                        else " One row per state entry (an event log).")
        add(f"entity:{e.name}", f"{e.name} entity type",
            f"{e.description} Table {table}, id column {e.id.column}, {e.count} entities.{emission} "
            f"Attributes: {attrs}.", ["entity", e.name])
        sm = e.states
        if sm is not None:
            states = "; ".join(f"{s}: {d.description.rstrip('.')}" if d.description else s for s, d in sm.states.items())
            moves = "; ".join(f"{a} -> {', '.join(b)}" for a, b in sm.transitions.items())
            where = f"column {sm.column}" if sm.column else "hidden (no state column)"
            derived = "".join(f" Derived column {c}." for c in sm.derived_columns)
            add(f"states:{e.name}", f"{e.name} state machine",
                f"States of {e.name} ({where}): {states}. Transitions: {moves}.{derived}", ["states", e.name])
        ms = [m for m in e.measurements if not m.hidden]
        for i in range(0, len(ms), 6):
            group = ms[i:i + 6]
            items = "; ".join(m.name + (f" ({m.unit})" if m.unit else "") + (f": {m.description}" if m.description
                                                                           else "") for m in group)
            add(f"measurements:{e.name}:{i // 6}", f"{e.name} measurements",
                f"Measurements of {e.name}: {items}.", ["measurements", e.name])
    for inc in spec.incidents:
        add(f"incident:{inc.id}", f"shipped incident {inc.id} ({inc.kind})",
            f"Incident {inc.id}, kind {inc.kind}: {inc.description}", ["incident", inc.kind])
    for ex in spec.exemplars:
        add(f"exemplar:{ex.name}", f"exemplar {ex.name}", f"Exemplar {ex.name} ({ex.entity}): {ex.description}",
            ["exemplar", ex.entity])
    for p in spec.personas:
        docs.append(persona_doc(p.name, p.description, p.style, p.vocabulary, [name], src, prefix=f"{name}:"))
    return docs


def persona_doc(name: str, description: str, style: str, vocabulary: dict, domains: list[str], source: str,
                prefix: str = "", goals: list[str] | None = None) -> Doc:
    """A persona (who asks, how they word it) as a document ``persona:<prefix><name>``."""
    vocab = ", ".join(f"{k} = {v}" for k, v in (vocabulary or {}).items())
    text = " ".join(x for x in (description, f"Goals: {'; '.join(goals)}." if goals else "",
                                f"Style: {style}." if style else "",
                                f"Vocabulary: {vocab}." if vocab else "") if x)
    return Doc(id=f"persona:{prefix}{name}", kind="persona", title=f"persona {name.replace('_', ' ')}",
               text=text or name, domains=list(domains), tags=["persona"], source=source)


def library_persona_docs(path: Path = PERSONAS_FILE) -> list[Doc]:
    """The persona library file, if present: a list of personas or ``{personas: [...]}``; each a
    mapping with ``name`` and optional ``description``, ``style``, ``vocabulary``, ``domain(s)``."""
    if not path.is_file():
        return []
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or []
    if isinstance(data, dict):
        data = data.get("personas", [{"name": k, **(v or {})} for k, v in data.items() if isinstance(v, dict)])
    docs = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict) or not item.get("name"):
            continue
        domains = item.get("domains") or ([item["domain"]] if item.get("domain") else [])
        vocab = item.get("vocabulary") if isinstance(item.get("vocabulary"), dict) else {}
        goals = item.get("goals") if isinstance(item.get("goals"), list) else None
        docs.append(persona_doc(str(item["name"]), str(item.get("description", "")), str(item.get("style", "")),
                                vocab, [str(d) for d in domains], "knowledge/personas.yaml",
                                goals=[str(g) for g in goals] if goals else None))
    return docs


def pattern_docs() -> list[Doc]:
    """One document per incident pattern kind, from knowledge/docs/patterns.yaml."""
    data = yaml.load((DOCS_DIR / "patterns.yaml").read_text(encoding="utf-8"), Loader=_LOADER)
    docs = []
    for kind, d in data.items():
        where = " ".join(f"In {dom}: {ex}." for dom, ex in d["domains"].items())
        text = f"{' '.join(d['looks_like'].split())} {where} Parameters: {d['parameters']}. " \
               f"Typical magnitudes: {d['magnitudes']}."
        docs.append(Doc(id=f"pattern:{kind}", kind="pattern", title=f"incident pattern {d['title']}", text=text,
                        domains=list(d["domains"]), tags=["pattern", kind], source="tools/patterns"))
    return docs


def template_docs() -> list[Doc]:
    """One document per query template, from knowledge/docs/templates.yaml."""
    data = yaml.load((DOCS_DIR / "templates.yaml").read_text(encoding="utf-8"), Loader=_LOADER)
    return [Doc(id=f"template:{name}", kind="template", title=f"{d['family']} query template {name}",
                text=f"Asks: {d['asks']} Example: {d['example']} Exposes: {d['exposes']}", tags=["template", d["family"], name],
                source="tools/queries")
            for name, d in data.items()]


def catalog_docs() -> list[Doc]:
    """One document per domain-catalog archetype (``catalog:<part>:<id>``): its names and synonyms,
    so the embedding search maps a user's noun phrase to it."""
    from knowledge.catalog import load_catalog

    c = load_catalog()
    docs = []
    for part, items in (("measurements", c.measurements), ("entities", c.entities), ("attributes", c.attributes),
                        ("incidents", c.incidents)):
        for x in items:
            name = getattr(x, "name", x.id.replace("_", " "))
            text = "; ".join(dict.fromkeys([name, *x.synonyms]))
            docs.append(Doc(id=f"catalog:{part}:{x.id}", kind="catalog", title=name, text=text,
                            tags=["catalog", part, x.field], source="knowledge/catalog"))
    return docs


def builtin_docs() -> list[Doc]:
    """Every built-in document, in a stable order (ids are unique)."""
    docs = [d for name in list_packs() for d in pack_docs(name)]
    docs += pattern_docs() + template_docs() + library_persona_docs() + catalog_docs()
    seen: set[str] = set()
    return [d for d in docs if not (d.id in seen or seen.add(d.id))]
