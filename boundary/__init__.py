"""The boundary between the faces (cli/, integrations/) and the engine: its composition root."""
