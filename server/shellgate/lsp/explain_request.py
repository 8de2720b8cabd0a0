"""Custom request `shellgate/explain`: the explain JSON for a command, for editor commands.

Params (camelCase): `command` (argv list, or a string run as `bash -lc`), or `script`; then
optional `cwd`, `approvalPolicy` (name or {"granular": {...}}), `sandbox`, and `uri`: the
document the user is looking at. The rules are the layers as typed (open buffers), plus `uri`
when it is a draft outside every layer; how that differs from the rules that run (the saved
layers) is a `rules-view` warning. Bad params are an InvalidParams error with a message for the
user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from shellgate.explain import to_json
from shellgate.explain.markdown import render_markdown
from shellgate.lsp.tracing import codex_trust_notes, context_for, trace

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

METHOD = "shellgate/explain"


def _field(params: Any, name: str) -> Any:
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


def parse_command(params: Any) -> list[str] | str:
    command = _field(params, "command")
    script = _field(params, "script")
    if isinstance(script, str) and script.strip():
        return script
    if isinstance(command, str) and command.strip():
        return command
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return list(command)
    raise JsonRpcInvalidParams(
        "shellgate/explain needs `command` (a non-empty list of strings or a string) or `script`"
    )


def register(server: ShellGateServer) -> None:
    @server.feature(METHOD)
    async def explain_request(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        command = parse_command(params)
        try:
            context = context_for(
                ls.session.settings, _field(params, "approvalPolicy"), _field(params, "sandbox")
            )
        except ValueError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        cwd = _field(params, "cwd")
        uri = _field(params, "uri")
        merged = await ls.session.merged_async(uri if isinstance(uri, str) and uri else None)
        explained = trace(command, merged, context, cwd if isinstance(cwd, str) else None)
        result = to_json(explained)
        for trust in codex_trust_notes(ls.session.settings, ls.session.roots):
            if not trust["codexLoads"]:  # the editor uses these rules; Codex itself would not
                result.setdefault("warnings", []).append(
                    {"code": "codex-trust", "message": str(trust["message"]), "segment": None,
                     "inner_command": None}
                )  # fmt: skip
        for note in merged.differences():  # what is shown is not what runs: say so
            result.setdefault("warnings", []).append(
                {"code": "rules-view", "message": f"not what runs: {note}", "segment": None,
                 "inner_command": None}
            )  # fmt: skip
        for _, err in merged.broken:  # Codex would run with no rules at all: say so
            result.setdefault("warnings", []).append(
                {
                    "code": "rules-refused",
                    "message": f"Codex refuses to load the rules: {err}; until that is fixed it "
                    "runs with none of them",
                    "segment": None,
                    "inner_command": None,
                }
            )
        notes = [w["message"] for w in result.get("warnings", [])[len(explained.warnings):]]
        extra = "".join(f"- ⚠ {n}\n" for n in notes)
        result["markdown"] = render_markdown(explained) + (f"\n{extra}" if extra else "")
        return result
