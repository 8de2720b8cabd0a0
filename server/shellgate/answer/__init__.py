"""The answerers between the rules and the person, as Codex has them: its command hooks
(`codex_hooks` finds them, `hook_process` runs them, `hook_answers` reads their answers,
`hooks` is one session's hooks) and its auto-reviewer (`reviewer`); `stage` builds the
approval seam's `AnswerStage` for a session. The stage's types are `approval.answerers`."""
