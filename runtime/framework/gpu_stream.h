// GpuStream: what the launcher of a CUDA kernel needs, in plain C++ so that the .cu.cc files
// compiled by nvcc include no Abseil or protobuf header (tools/cuda.bzl).
//
// A launcher makes `ordinal` the calling thread's current device, queues its kernel on
// `stream` and returns null, or CUDA's text for the error that stopped it (a static string).
#ifndef TENSORD_RUNTIME_FRAMEWORK_GPU_STREAM_H_
#define TENSORD_RUNTIME_FRAMEWORK_GPU_STREAM_H_

struct CUstream_st;

namespace tensord {

struct GpuStream {
  int ordinal = 0;
  CUstream_st* stream = nullptr;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_GPU_STREAM_H_
