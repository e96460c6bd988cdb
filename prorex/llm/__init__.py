"""LLM access for prorex: one litellm client per run, reply parsing, offline models.

The environment variable below must be set before litellm is imported anywhere:
it keeps litellm from fetching its model-price map over the network at import.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from prorex.llm.client import LLMClient, LLMError, LLMReply  # noqa: E402
from prorex.llm.parsing import ParseError  # noqa: E402

__all__ = ["LLMClient", "LLMError", "LLMReply", "ParseError"]
