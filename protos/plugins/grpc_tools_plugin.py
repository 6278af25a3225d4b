"""A protoc plugin that runs one of grpcio-tools' built-in generators (``grpc_python``) for ``buf generate``.

grpcio-tools (PyPI) bundles protoc with the gRPC Python generator compiled in, but ships no
``protoc-gen-grpc_python`` executable, and buf only knows protoc's own built-ins (``python``, ``pyi``). This
wrapper speaks the plugin protocol: it reads buf's ``CodeGeneratorRequest``, hands its descriptors to
``grpc_tools.protoc`` (``--descriptor_set_in``), and answers with the files the generator wrote::

    - local: [.venv/bin/python, protos/plugins/grpc_tools_plugin.py, grpc_python]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2
from grpc_tools import protoc


def run(generator: str, request: plugin_pb2.CodeGeneratorRequest) -> plugin_pb2.CodeGeneratorResponse:
    """Generate ``request.file_to_generate`` with grpc_tools' ``generator``; its output or its error."""
    response = plugin_pb2.CodeGeneratorResponse(
        supported_features=plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL
    )
    with tempfile.TemporaryDirectory() as tmp:
        descriptors = Path(tmp) / "request.binpb"
        descriptors.write_bytes(descriptor_pb2.FileDescriptorSet(file=request.proto_file).SerializeToString())
        out = Path(tmp) / "out"
        out.mkdir()
        args = ["grpc_tools.protoc", f"--descriptor_set_in={descriptors}", f"--{generator}_out={out}"]
        if request.parameter:
            args.append(f"--{generator}_opt={request.parameter}")
        if protoc.main([*args, *request.file_to_generate]) != 0:
            response.error = f"grpc_tools.protoc --{generator}_out failed"
            return response
        for path in sorted(out.rglob("*")):
            if path.is_file():
                response.file.add(name=path.relative_to(out).as_posix(), content=path.read_text("utf-8"))
    return response


def main() -> int:
    """Read the request from stdin, write the response to stdout (the protoc plugin protocol)."""
    if len(sys.argv) != 2:
        print("usage: grpc_tools_plugin.py GENERATOR (e.g. grpc_python)", file=sys.stderr)
        return 2
    request = plugin_pb2.CodeGeneratorRequest.FromString(sys.stdin.buffer.read())
    sys.stdout.buffer.write(run(sys.argv[1], request).SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
