"""Typed stages: one module per stage, listed in ``registry.py``; params models in ``params.py``.

A stage is ``run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | Out | None``
(types imported under ``TYPE_CHECKING`` only: start-up imports nothing for them). The executor
calls it positionally, so an argument a stage does not read is named ``_params`` / ``_ctx``.
What its registry entry promises is checked from its source by ``contract_check.py`` (summary
lines <=> ``emits_summaries``, returned ports <=> ``ports``) and by ``tests/test_stage_contract.py``
(params keys read <=> its params model).
"""
