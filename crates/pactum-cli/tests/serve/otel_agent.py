"""A scripted agent instrumented with the OpenTelemetry Python SDK, sending
its spans with the OTLP/HTTP protobuf exporter to the endpoint given as
argv[1] (`http://127.0.0.1:PORT/v1/traces`).

Three agent runs, each its own trace, following the GenAI semantic
conventions: one deletes a file (prohibited), one only lists files, and one
with content capture off (no message attributes). Prints the three trace ids
as a JSON object on stdout.
"""

import json
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

endpoint = sys.argv[1]
provider = TracerProvider(resource=Resource.create({"service.name": "scripted-agent"}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
tracer = provider.get_tracer("pactum-test-agent")


def run(tools, answer, capture):
    with tracer.start_as_current_span(
        "invoke_agent helper",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
    ) as root:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted-1"}
        if capture:
            parts = [{"type": "text", "content": answer}] + [
                {"type": "tool_call", "id": f"call_{i}", "name": t, "arguments": {"path": "/tmp/x"}}
                for i, t in enumerate(tools)
            ]
            attrs["gen_ai.input.messages"] = json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "Tidy my files."}]}]
            )
            attrs["gen_ai.output.messages"] = json.dumps(
                [{"role": "assistant", "parts": parts, "finish_reason": "stop"}]
            )
        with tracer.start_as_current_span("chat scripted-1", attributes=attrs):
            pass
        for i, t in enumerate(tools):
            with tracer.start_as_current_span(
                f"execute_tool {t}",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": t,
                    "gen_ai.tool.call.id": f"call_{i}",
                },
            ):
                pass
        return format(root.get_span_context().trace_id, "032x")


ids = {
    "violating": run(["list_files", "delete_file"], "Done, I deleted it.", True),
    "clean": run(["list_files"], "Here are your files.", True),
    "capture_off": run(["list_files"], "", False),
}
provider.force_flush()
provider.shutdown()
print(json.dumps(ids))
