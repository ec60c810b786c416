"""Server reflection under both protocol names: grpc.reflection.v1 and its older v1alpha."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

__all__ = ["V1_SERVICE_NAME", "enable_reflection"]

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
_V1_FILE = "grpc/reflection/v1/reflection.proto"
_ALPHA_PACKAGE = ".grpc.reflection.v1alpha."
_V1_PACKAGE = ".grpc.reflection.v1."


def _rename_types(message: descriptor_pb2.DescriptorProto) -> None:
    for field in message.field:
        if field.HasField("type_name"):  # assigning even "" would give a scalar a type name
            field.type_name = field.type_name.replace(_ALPHA_PACKAGE, _V1_PACKAGE)
    for nested in message.nested_type:
        _rename_types(nested)


def _register_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Describe v1 to reflection clients (grpcurl asks for the file of every listed service).

    grpcio-reflection ships only v1alpha. v1 is the same protocol field for field under another
    package, so its file is v1alpha's renamed, and v1alpha's classes read and write v1's bytes.
    """
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    file.name, file.package = _V1_FILE, "grpc.reflection.v1"
    file.ClearField("options")
    for message in file.message_type:
        _rename_types(message)
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(_ALPHA_PACKAGE, _V1_PACKAGE)
            method.output_type = method.output_type.replace(_ALPHA_PACKAGE, _V1_PACKAGE)
    pool.Add(file)


def enable_reflection(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    """Serve reflection for ``service_names`` (and both reflection services) on ``server``."""
    pool = descriptor_pool.Default()
    _register_v1_descriptor(pool)
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names, pool=pool)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))
