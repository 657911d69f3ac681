"""The Model Context Protocol server: benchdoc's library offered to coding agents (`benchdoc mcp`).

Nothing is imported here, so `import benchdoc.mcp` costs nothing and never loads the SDK. The
SDK is the top-level package ``mcp`` (the optional extra ``benchdoc[mcp]``); modules of this
package reach it by absolute import (``from mcp.server.mcpserver import MCPServer``), which
Python resolves to the SDK, never to this package. Only :mod:`benchdoc.mcp.server` imports it:

- :mod:`benchdoc.mcp.scope`     the one project folder a server works in, and what it may do;
- :mod:`benchdoc.mcp.reading`   the read tools: experiments, compare, history, lint, check, documents;
- :mod:`benchdoc.mcp.plans`     sync plans and lint fixes with ids bound to the document and ledger state;
- :mod:`benchdoc.mcp.writing`   the write tools: record, retract, sync_write, apply_fix;
- :mod:`benchdoc.mcp.runjob`    `run` in a child process, stopped like Ctrl-C on cancellation;
- :mod:`benchdoc.mcp.server`    the tools and resources registered with the SDK, over stdio.
"""
