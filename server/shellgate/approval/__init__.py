"""From an evaluation to what happens next, as Codex 0.169.0 decides it (spec part C).

- `context`: approval policy (incl. granular flags), sandbox mode / filesystem kind, the call's
  sandbox permissions, `ExecContext` bundling them;
- `fallback`: the decision for a command no rule matched;
- `requirement`: `create_exec_approval_requirement(argv, context, policy)` -> Skip |
  NeedsApproval | Forbidden, with Codex's reason strings;
- `defaults`: default requirement, first-attempt sandbox override, wants_no_sandbox_approval;
- `cache`: the session's "don't ask again for this command" store; `review`: ReviewDecision.
"""
