// Checks that the generated protos carry the wire facts of
// shared/docs/wire-protocols.md: field numbers and types, enum values,
// service and method names, text format and JSON names.

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include "protos/grpc_health/health.grpc.pb.h"
#include "protos/kserve/grpc_service.grpc.pb.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/input.pb.h"
#include "protos/serving/model_server_config.pb.h"
#include "protos/serving/monitoring_config.pb.h"
#include "protos/serving/platform_config.pb.h"
#include "protos/serving/predict.pb.h"
#include "protos/serving/prediction_log.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/saved_model_bundle_source_adapter.pb.h"
#include "protos/serving/saved_model_config.pb.h"
#include "protos/serving/serialized_input.pb.h"
#include "protos/serving/session_bundle_config.pb.h"
#include "protos/tensorflow/error_codes.pb.h"
#include "protos/tensorflow/fingerprint.pb.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "protos/tensorflow/saved_model.pb.h"
#include "protos/tensorflow/tensor.pb.h"
#include "protos/tensorflow/tensor_bundle.pb.h"
#include "protos/tensorflow/types.pb.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::TextFormat;

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

TEST(TensorProtoTest, FloatValRoundTripAndExactBytes) {
  tensorflow::TensorProto t;
  t.set_dtype(tensorflow::DT_FLOAT);
  t.mutable_tensor_shape()->add_dim()->set_size(2);
  t.add_float_val(1.0f);
  t.add_float_val(2.0f);

  std::string wire;
  ASSERT_TRUE(t.SerializeToString(&wire));
  // dtype(1)=1 | tensor_shape(2){dim(2){size(1)=2}} | float_val(5) packed [1.0f, 2.0f]
  EXPECT_EQ(Hex(wire), "0801" "12041202" "0802" "2a08" "0000803f" "00000040");

  tensorflow::TensorProto back;
  ASSERT_TRUE(back.ParseFromString(wire));
  EXPECT_EQ(back.dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(back.tensor_shape().dim_size(), 1);
  EXPECT_EQ(back.tensor_shape().dim(0).size(), 2);
  ASSERT_EQ(back.float_val_size(), 2);
  EXPECT_EQ(back.float_val(0), 1.0f);
  EXPECT_EQ(back.float_val(1), 2.0f);
}

TEST(TensorProtoTest, AcceptsUnpackedRepeatedScalars) {
  // float_val written unpacked: two fixed32 records with tag (5 << 3) | 5.
  const std::string wire("\x08\x01\x2d\x00\x00\x80\x3f\x2d\x00\x00\x00\x40", 12);
  tensorflow::TensorProto t;
  ASSERT_TRUE(t.ParseFromString(wire));
  ASSERT_EQ(t.float_val_size(), 2);
  EXPECT_EQ(t.float_val(1), 2.0f);
}

TEST(TensorProtoTest, ScalarShapeIsEmptyOnTheWire) {
  tensorflow::TensorShapeProto shape;
  EXPECT_EQ(shape.ByteSizeLong(), 0u);
}

struct FieldFact {
  const char* message;
  const char* field;
  int number;
  FieldDescriptor::Type type;
  bool repeated;
};

TEST(DescriptorTest, FieldNumbersAndTypesMatchTheDoc) {
  using F = FieldDescriptor;
  const FieldFact facts[] = {
      // tensorflow core
      {"tensorflow.TensorShapeProto", "dim", 2, F::TYPE_MESSAGE, true},
      {"tensorflow.TensorShapeProto", "unknown_rank", 3, F::TYPE_BOOL, false},
      {"tensorflow.TensorShapeProto.Dim", "size", 1, F::TYPE_INT64, false},
      {"tensorflow.TensorProto", "dtype", 1, F::TYPE_ENUM, false},
      {"tensorflow.TensorProto", "tensor_shape", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.TensorProto", "version_number", 3, F::TYPE_INT32, false},
      {"tensorflow.TensorProto", "tensor_content", 4, F::TYPE_BYTES, false},
      {"tensorflow.TensorProto", "float_val", 5, F::TYPE_FLOAT, true},
      {"tensorflow.TensorProto", "double_val", 6, F::TYPE_DOUBLE, true},
      {"tensorflow.TensorProto", "int_val", 7, F::TYPE_INT32, true},
      {"tensorflow.TensorProto", "string_val", 8, F::TYPE_BYTES, true},
      {"tensorflow.TensorProto", "scomplex_val", 9, F::TYPE_FLOAT, true},
      {"tensorflow.TensorProto", "int64_val", 10, F::TYPE_INT64, true},
      {"tensorflow.TensorProto", "bool_val", 11, F::TYPE_BOOL, true},
      {"tensorflow.TensorProto", "dcomplex_val", 12, F::TYPE_DOUBLE, true},
      {"tensorflow.TensorProto", "half_val", 13, F::TYPE_INT32, true},
      {"tensorflow.TensorProto", "resource_handle_val", 14, F::TYPE_MESSAGE, true},
      {"tensorflow.TensorProto", "variant_val", 15, F::TYPE_MESSAGE, true},
      {"tensorflow.TensorProto", "uint32_val", 16, F::TYPE_UINT32, true},
      {"tensorflow.TensorProto", "uint64_val", 17, F::TYPE_UINT64, true},
      {"tensorflow.TensorProto", "float8_val", 18, F::TYPE_BYTES, false},
      {"tensorflow.ResourceHandleProto", "hash_code", 4, F::TYPE_UINT64, false},
      {"tensorflow.ResourceHandleProto", "dtypes_and_shapes", 6, F::TYPE_MESSAGE, true},
      {"tensorflow.AttrValue", "list", 1, F::TYPE_MESSAGE, false},
      {"tensorflow.AttrValue", "placeholder", 9, F::TYPE_STRING, false},
      {"tensorflow.AttrValue", "func", 10, F::TYPE_MESSAGE, false},
      {"tensorflow.AttrValue.ListValue", "func", 9, F::TYPE_MESSAGE, true},
      {"tensorflow.NodeDef", "attr", 5, F::TYPE_MESSAGE, true},
      {"tensorflow.NodeDef", "experimental_type", 7, F::TYPE_MESSAGE, false},
      {"tensorflow.GraphDef", "library", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.GraphDef", "versions", 4, F::TYPE_MESSAGE, false},
      {"tensorflow.GraphDef", "debug_info", 5, F::TYPE_MESSAGE, false},
      {"tensorflow.FunctionDef", "arg_attr", 7, F::TYPE_MESSAGE, true},
      {"tensorflow.FunctionDef", "resource_arg_unique_id", 8, F::TYPE_MESSAGE, true},
      {"tensorflow.OpDef", "is_distributed_communication", 21, F::TYPE_BOOL, false},
      {"tensorflow.OpDef.ArgDef", "is_ref", 16, F::TYPE_BOOL, false},
      {"tensorflow.OpDef.ArgDef", "experimental_full_type", 17, F::TYPE_MESSAGE, false},
      {"tensorflow.FullTypeDef", "i", 4, F::TYPE_INT64, false},
      {"tensorflow.SavedModel", "saved_model_schema_version", 1, F::TYPE_INT64, false},
      {"tensorflow.SavedModel", "meta_graphs", 2, F::TYPE_MESSAGE, true},
      {"tensorflow.MetaGraphDef", "signature_def", 5, F::TYPE_MESSAGE, true},
      {"tensorflow.MetaGraphDef", "object_graph_def", 7, F::TYPE_MESSAGE, false},
      {"tensorflow.MetaGraphDef.MetaInfoDef", "tags", 4, F::TYPE_STRING, true},
      {"tensorflow.MetaGraphDef.MetaInfoDef", "function_aliases", 8, F::TYPE_MESSAGE, true},
      {"tensorflow.TensorInfo", "name", 1, F::TYPE_STRING, false},
      {"tensorflow.TensorInfo", "dtype", 2, F::TYPE_ENUM, false},
      {"tensorflow.TensorInfo", "tensor_shape", 3, F::TYPE_MESSAGE, false},
      {"tensorflow.TensorInfo", "coo_sparse", 4, F::TYPE_MESSAGE, false},
      {"tensorflow.TensorInfo", "composite_tensor", 5, F::TYPE_MESSAGE, false},
      {"tensorflow.SignatureDef", "inputs", 1, F::TYPE_MESSAGE, true},
      {"tensorflow.SignatureDef", "outputs", 2, F::TYPE_MESSAGE, true},
      {"tensorflow.SignatureDef", "method_name", 3, F::TYPE_STRING, false},
      {"tensorflow.SignatureDef", "defaults", 4, F::TYPE_MESSAGE, true},
      {"tensorflow.SaverDef", "version", 7, F::TYPE_ENUM, false},
      {"tensorflow.StructuredValue", "int64_value", 12, F::TYPE_SINT64, false},
      {"tensorflow.StructuredValue", "numpy_value", 56, F::TYPE_MESSAGE, false},
      {"tensorflow.TypeSpecProto", "num_flat_components", 4, F::TYPE_INT32, false},
      {"tensorflow.SavedObject", "captured_tensor", 12, F::TYPE_MESSAGE, false},
      {"tensorflow.SavedObject", "registered_saver", 16, F::TYPE_STRING, false},
      {"tensorflow.FunctionSpec", "jit_compile", 6, F::TYPE_ENUM, false},
      {"tensorflow.TrackableObjectGraph.TrackableObject", "has_checkpoint_values", 5,
       F::TYPE_MESSAGE, false},
      {"tensorflow.BundleHeaderProto", "endianness", 2, F::TYPE_ENUM, false},
      {"tensorflow.BundleEntryProto", "crc32c", 6, F::TYPE_FIXED32, false},
      {"tensorflow.BundleEntryProto", "slices", 7, F::TYPE_MESSAGE, true},
      {"tensorflow.TensorSliceProto.Extent", "length", 2, F::TYPE_INT64, false},
      {"tensorflow.FingerprintDef", "saved_model_checksum", 1, F::TYPE_UINT64, false},
      {"tensorflow.FingerprintDef", "uuid", 7, F::TYPE_STRING, false},
      {"tensorflow.GraphDebugInfo", "frames_by_id", 4, F::TYPE_MESSAGE, true},
      {"tensorflow.GraphDebugInfo.StackTrace", "frame_id", 2, F::TYPE_FIXED64, true},
      {"tensorflow.VariableDef", "aggregation", 9, F::TYPE_ENUM, false},
      {"tensorflow.Feature", "int64_list", 3, F::TYPE_MESSAGE, false},
      {"tensorflow.Features", "feature", 1, F::TYPE_MESSAGE, true},
      {"tensorflow.SequenceExample", "feature_lists", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.ConfigProto", "gpu_options", 6, F::TYPE_MESSAGE, false},
      {"tensorflow.ConfigProto", "experimental", 16, F::TYPE_MESSAGE, false},
      {"tensorflow.ConfigProto", "pluggable_device_options", 18, F::TYPE_MESSAGE, false},
      {"tensorflow.ConfigProto.Experimental", "session_metadata", 11, F::TYPE_MESSAGE, false},
      {"tensorflow.GPUOptions", "allow_growth", 4, F::TYPE_BOOL, false},
      {"tensorflow.GPUOptions.Experimental", "gpu_host_mem_limit_in_mb", 13, F::TYPE_FLOAT,
       false},
      {"tensorflow.RunOptions", "timeout_in_ms", 2, F::TYPE_INT64, false},
      {"tensorflow.RunMetadata", "session_metadata", 5, F::TYPE_MESSAGE, false},
      // tensorflow.serving
      {"tensorflow.serving.ModelSpec", "name", 1, F::TYPE_STRING, false},
      {"tensorflow.serving.ModelSpec", "version", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ModelSpec", "signature_name", 3, F::TYPE_STRING, false},
      {"tensorflow.serving.ModelSpec", "version_label", 4, F::TYPE_STRING, false},
      {"tensorflow.serving.PredictRequest", "model_spec", 1, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.PredictRequest", "inputs", 2, F::TYPE_MESSAGE, true},
      {"tensorflow.serving.PredictRequest", "output_filter", 3, F::TYPE_STRING, true},
      {"tensorflow.serving.PredictRequest", "predict_streamed_options", 5, F::TYPE_MESSAGE,
       false},
      {"tensorflow.serving.PredictRequest", "client_id", 6, F::TYPE_BYTES, false},
      {"tensorflow.serving.PredictRequest", "request_options", 7, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.PredictRequest.RequestOptions", "max_cache_length", 6,
       F::TYPE_INT64, false},
      {"tensorflow.serving.PredictResponse", "outputs", 1, F::TYPE_MESSAGE, true},
      {"tensorflow.serving.PredictResponse", "model_spec", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.Input", "example_list_with_context", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ClassificationResponse", "result", 1, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ClassificationResponse", "model_spec", 2, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.Class", "score", 2, F::TYPE_FLOAT, false},
      {"tensorflow.serving.InferenceResult", "regression_result", 3, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.SignatureDefMap", "signature_def", 1, F::TYPE_MESSAGE, true},
      {"tensorflow.serving.GetModelMetadataRequest", "metadata_field", 2, F::TYPE_STRING, true},
      {"tensorflow.serving.GetModelMetadataResponse", "metadata", 2, F::TYPE_MESSAGE, true},
      {"tensorflow.serving.StatusProto", "error_code", 1, F::TYPE_ENUM, false},
      {"tensorflow.serving.ModelVersionStatus", "version", 1, F::TYPE_INT64, false},
      {"tensorflow.serving.ModelVersionStatus", "state", 2, F::TYPE_ENUM, false},
      {"tensorflow.serving.ModelVersionStatus", "status", 3, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ReloadConfigRequest", "metric_names", 2, F::TYPE_STRING, true},
      {"tensorflow.serving.Metric", "int64_value_increase", 2, F::TYPE_INT64, false},
      {"tensorflow.serving.SessionRunRequest", "tensor_name_is_alias", 6, F::TYPE_BOOL, false},
      {"tensorflow.serving.PredictionLog", "predict_log", 6, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.PredictionLog", "predict_streamed_log", 7, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.LogMetadata", "safe_aggregation_privacy_key", 8, F::TYPE_INT64,
       false},
      {"tensorflow.serving.ModelConfig", "model_platform", 4, F::TYPE_STRING, false},
      {"tensorflow.serving.ModelConfig", "logging_config", 6, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ModelConfig", "model_version_policy", 7, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.ModelConfig", "version_labels", 8, F::TYPE_MESSAGE, true},
      {"tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy", "latest",
       100, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy", "specific",
       102, F::TYPE_MESSAGE, false},
      {"tensorflow.serving.FileSystemStoragePathSourceConfig", "servable_versions_always_present",
       6, F::TYPE_BOOL, false},
      {"tensorflow.serving.SamplingConfig", "sampling_rate", 1, F::TYPE_DOUBLE, false},
      {"tensorflow.serving.SSLConfig", "client_verify", 4, F::TYPE_BOOL, false},
      {"tensorflow.serving.SavedModelBundleSourceAdapterConfig", "legacy_config", 1000,
       F::TYPE_MESSAGE, false},
      {"tensorflow.serving.SessionBundleConfig", "session_run_load_threadpool_index", 4,
       F::TYPE_MESSAGE, false},
      {"tensorflow.serving.SessionBundleConfig", "experimental_fixed_input_tensors", 778,
       F::TYPE_MESSAGE, true},
      {"tensorflow.serving.SessionBundleConfig", "mixed_precision", 791, F::TYPE_STRING, false},
      {"tensorflow.serving.BatchingParameters", "allowed_batch_sizes", 6, F::TYPE_INT64, true},
      {"tensorflow.serving.BatchingParameters", "max_execution_batch_size", 9, F::TYPE_MESSAGE,
       false},
      {"tensorflow.serving.SavedModelConfig", "critical", 3, F::TYPE_BOOL, false},
      // inference (KServe v2 / Triton)
      {"inference.InferParameter", "double_param", 4, F::TYPE_DOUBLE, false},
      {"inference.InferParameter", "uint64_param", 5, F::TYPE_UINT64, false},
      {"inference.InferTensorContents", "uint_contents", 4, F::TYPE_UINT32, true},
      {"inference.InferTensorContents", "bytes_contents", 8, F::TYPE_BYTES, true},
      {"inference.ModelInferRequest", "inputs", 5, F::TYPE_MESSAGE, true},
      {"inference.ModelInferRequest", "outputs", 6, F::TYPE_MESSAGE, true},
      {"inference.ModelInferRequest", "raw_input_contents", 7, F::TYPE_BYTES, true},
      {"inference.ModelInferRequest.InferInputTensor", "shape", 3, F::TYPE_INT64, true},
      {"inference.ModelInferRequest.InferInputTensor", "contents", 5, F::TYPE_MESSAGE, false},
      {"inference.ModelInferResponse", "raw_output_contents", 6, F::TYPE_BYTES, true},
      {"inference.ModelStreamInferResponse", "infer_response", 2, F::TYPE_MESSAGE, false},
      {"inference.ModelMetadataResponse", "platform", 3, F::TYPE_STRING, false},
      {"inference.ModelMetadataResponse.TensorMetadata", "shape", 3, F::TYPE_INT64, true},
      {"inference.ServerMetadataResponse", "extensions", 3, F::TYPE_STRING, true},
      {"inference.ModelStatistics", "response_stats", 9, F::TYPE_MESSAGE, true},
      {"inference.InferStatistics", "cache_miss", 8, F::TYPE_MESSAGE, false},
      {"inference.RepositoryModelLoadRequest", "model_name", 2, F::TYPE_STRING, false},
      {"inference.RepositoryModelLoadRequest", "parameters", 3, F::TYPE_MESSAGE, true},
      {"inference.ModelRepositoryParameter", "bytes_param", 4, F::TYPE_BYTES, false},
      {"inference.CudaSharedMemoryRegisterRequest", "raw_handle", 2, F::TYPE_BYTES, false},
      {"inference.ModelConfigResponse", "config", 1, F::TYPE_MESSAGE, false},
      {"inference.ModelConfig", "max_batch_size", 4, F::TYPE_INT32, false},
      {"grpc.health.v1.HealthCheckResponse", "status", 1, F::TYPE_ENUM, false},
  };
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  for (const FieldFact& f : facts) {
    SCOPED_TRACE(std::string(f.message) + "." + f.field);
    const Descriptor* d = pool->FindMessageTypeByName(f.message);
    ASSERT_NE(d, nullptr);
    const FieldDescriptor* fd = d->FindFieldByName(f.field);
    ASSERT_NE(fd, nullptr);
    EXPECT_EQ(fd->number(), f.number);
    EXPECT_EQ(fd->type(), f.type);
    EXPECT_EQ(fd->is_repeated(), f.repeated);
  }
}

TEST(DescriptorTest, OneofsAndMapsAsDocumented) {
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  const Descriptor* spec = pool->FindMessageTypeByName("tensorflow.serving.ModelSpec");
  ASSERT_NE(spec, nullptr);
  ASSERT_NE(spec->FindOneofByName("version_choice"), nullptr);
  EXPECT_EQ(spec->FindOneofByName("version_choice")->field_count(), 2);
  EXPECT_EQ(spec->FindFieldByName("version")->message_type()->full_name(),
            "google.protobuf.Int64Value");

  const FieldDescriptor* inputs =
      pool->FindMessageTypeByName("tensorflow.serving.PredictRequest")->FindFieldByName("inputs");
  ASSERT_TRUE(inputs->is_map());
  EXPECT_EQ(inputs->message_type()->map_value()->message_type()->full_name(),
            "tensorflow.TensorProto");

  const FieldDescriptor* md = pool->FindMessageTypeByName(
                                      "tensorflow.serving.GetModelMetadataResponse")
                                  ->FindFieldByName("metadata");
  ASSERT_TRUE(md->is_map());
  EXPECT_EQ(md->message_type()->map_value()->message_type()->full_name(), "google.protobuf.Any");

  const Descriptor* log = pool->FindMessageTypeByName("tensorflow.serving.PredictionLog");
  ASSERT_NE(log->FindOneofByName("log_type"), nullptr);
  EXPECT_EQ(log->FindOneofByName("log_type")->field_count(), 6);
}

TEST(EnumTest, ValuesMatchTheDoc) {
  EXPECT_EQ(tensorflow::DT_FLOAT, 1);
  EXPECT_EQ(tensorflow::DT_STRING, 7);
  EXPECT_EQ(tensorflow::DT_HALF, 19);
  EXPECT_EQ(tensorflow::DT_UINT64, 23);
  EXPECT_EQ(tensorflow::DT_FLOAT4_E2M1FN, 33);
  EXPECT_EQ(tensorflow::DT_FLOAT_REF, 101);
  EXPECT_EQ(tensorflow::DT_FLOAT4_E2M1FN_REF, 133);
  EXPECT_EQ(tensorflow::error::UNAUTHENTICATED, 16);
  EXPECT_EQ(tensorflow::error::DO_NOT_USE_RESERVED_FOR_FUTURE_EXPANSION_USE_DEFAULT_IN_SWITCH_INSTEAD_,
            20);
  EXPECT_EQ(tensorflow::serving::ModelVersionStatus::AVAILABLE, 30);
  EXPECT_EQ(tensorflow::serving::ModelVersionStatus::END, 50);
  EXPECT_EQ(tensorflow::SaverDef::V2, 2);
  EXPECT_EQ(tensorflow::BundleHeaderProto::BIG, 1);
  EXPECT_EQ(tensorflow::TypeSpecProto::EXTENSION_TYPE_SPEC, 13);
  EXPECT_EQ(inference::TYPE_STRING, 13);
  EXPECT_EQ(grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN, 3);
}

void ExpectService(const std::string& service, const std::vector<std::string>& methods) {
  SCOPED_TRACE(service);
  const google::protobuf::ServiceDescriptor* sd =
      DescriptorPool::generated_pool()->FindServiceByName(service);
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->method_count(), static_cast<int>(methods.size()));
  for (const std::string& m : methods) {
    EXPECT_NE(sd->FindMethodByName(m), nullptr) << m;
  }
}

TEST(ServiceTest, ServicesAndMethodsExist) {
  ExpectService("tensorflow.serving.PredictionService",
                {"Classify", "Regress", "Predict", "MultiInference", "GetModelMetadata"});
  ExpectService("tensorflow.serving.ModelService",
                {"GetModelStatus", "HandleReloadConfigRequest"});
  ExpectService("tensorflow.serving.SessionService", {"SessionRun"});
  ExpectService(
      "inference.GRPCInferenceService",
      {"ServerLive", "ServerReady", "ModelReady", "ServerMetadata", "ModelMetadata",
       "ModelInfer", "ModelStreamInfer", "ModelConfig", "ModelStatistics", "RepositoryIndex",
       "RepositoryModelLoad", "RepositoryModelUnload", "SystemSharedMemoryStatus",
       "SystemSharedMemoryRegister", "SystemSharedMemoryUnregister", "CudaSharedMemoryStatus",
       "CudaSharedMemoryRegister", "CudaSharedMemoryUnregister", "TraceSetting", "LogSettings"});
  ExpectService("grpc.health.v1.Health", {"Check", "Watch"});

  const auto* predict = DescriptorPool::generated_pool()->FindMethodByName(
      "tensorflow.serving.PredictionService.Predict");
  ASSERT_NE(predict, nullptr);
  EXPECT_EQ(predict->input_type()->full_name(), "tensorflow.serving.PredictRequest");
  EXPECT_EQ(predict->output_type()->full_name(), "tensorflow.serving.PredictResponse");

  const auto* stream = DescriptorPool::generated_pool()->FindMethodByName(
      "inference.GRPCInferenceService.ModelStreamInfer");
  ASSERT_NE(stream, nullptr);
  EXPECT_TRUE(stream->client_streaming());
  EXPECT_TRUE(stream->server_streaming());
  EXPECT_EQ(stream->output_type()->full_name(), "inference.ModelStreamInferResponse");

  // The generated stubs exist (compile-time check of the .grpc.pb.h headers).
  using PredictionStub = tensorflow::serving::PredictionService::Stub;
  using KServeStub = inference::GRPCInferenceService::Stub;
  using ModelServiceStub = tensorflow::serving::ModelService::Stub;
  using HealthStub = grpc::health::v1::Health::Stub;
  EXPECT_GT(sizeof(PredictionStub) + sizeof(KServeStub) + sizeof(ModelServiceStub) +
                sizeof(HealthStub),
            0u);
}

TEST(TextFormatTest, ModelServerConfigFromTheDocs) {
  const char* text = R"pb(
    model_config_list {
      config {
        name: 'm1'
        base_path: '/models/m1'
        model_platform: 'tensorflow'
        model_version_policy { specific { versions: 42 versions: 43 } }
        version_labels { key: 'stable' value: 42 }
        version_labels { key: 'canary' value: 43 }
      }
      config { name: 'm2' base_path: '/models/m2' model_platform: 'tensorflow' }
    }
  )pb";
  tensorflow::serving::ModelServerConfig config;
  ASSERT_TRUE(TextFormat::ParseFromString(text, &config));
  ASSERT_EQ(config.model_config_list().config_size(), 2);
  const auto& m1 = config.model_config_list().config(0);
  EXPECT_EQ(m1.model_version_policy().specific().versions_size(), 2);
  EXPECT_EQ(m1.version_labels().at("canary"), 43);
}

TEST(TextFormatTest, BatchingMonitoringAndPlatformConfigs) {
  tensorflow::serving::BatchingParameters batching;
  ASSERT_TRUE(TextFormat::ParseFromString(
      "max_batch_size { value: 128 } batch_timeout_micros { value: 0 } "
      "max_enqueued_batches { value: 1000000 } num_batch_threads { value: 8 } "
      "pad_variable_length_inputs: true allowed_batch_sizes: 64 allowed_batch_sizes: 128",
      &batching));
  EXPECT_EQ(batching.max_batch_size().value(), 128);
  EXPECT_TRUE(batching.has_batch_timeout_micros());

  tensorflow::serving::MonitoringConfig monitoring;
  ASSERT_TRUE(TextFormat::ParseFromString(
      "prometheus_config: { enable: true, path: \"/monitoring/prometheus/metrics\" }",
      &monitoring));
  EXPECT_TRUE(monitoring.prometheus_config().enable());

  // Any fields in expanded form resolve against the generated pool.
  tensorflow::serving::PlatformConfigMap platforms;
  ASSERT_TRUE(TextFormat::ParseFromString(R"pb(
    platform_configs {
      key: "tensorflow"
      value {
        source_adapter_config {
          [type.googleapis.com/tensorflow.serving.SavedModelBundleSourceAdapterConfig] {
            legacy_config {
              session_config {
                intra_op_parallelism_threads: 4
                gpu_options { allow_growth: true }
              }
              batching_parameters { max_batch_size { value: 32 } }
            }
          }
        }
      }
    }
  )pb",
                                          &platforms));
  tensorflow::serving::SavedModelBundleSourceAdapterConfig adapter;
  ASSERT_TRUE(
      platforms.platform_configs().at("tensorflow").source_adapter_config().UnpackTo(&adapter));
  EXPECT_EQ(adapter.legacy_config().session_config().intra_op_parallelism_threads(), 4);
  EXPECT_TRUE(adapter.legacy_config().session_config().gpu_options().allow_growth());
}

TEST(JsonTest, StatusUsesSnakeCaseNames) {
  tensorflow::serving::GetModelStatusResponse response;
  auto* v = response.add_model_version_status();
  v->set_version(123);
  v->set_state(tensorflow::serving::ModelVersionStatus::AVAILABLE);
  v->mutable_status()->set_error_code(tensorflow::error::OK);
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(response, &json, options).ok());
  EXPECT_EQ(json,
            "{\"model_version_status\":[{\"version\":\"123\",\"state\":\"AVAILABLE\","
            "\"status\":{\"error_code\":\"OK\",\"error_message\":\"\"}}]}");
}

TEST(SerializedInputTest, ViewsTheSameBytes) {
  tensorflow::serving::Input input;
  auto* ex = input.mutable_example_list_with_context()->add_examples();
  (*ex->mutable_features()->mutable_feature())["x"].mutable_float_list()->add_value(1.5f);
  input.mutable_example_list_with_context()->mutable_context();
  std::string wire = input.SerializeAsString();

  tensorflow::serving::internal::SerializedInput view;
  ASSERT_TRUE(view.ParseFromString(wire));
  ASSERT_TRUE(view.has_example_list_with_context());
  ASSERT_EQ(view.example_list_with_context().examples_size(), 1);
  tensorflow::Example parsed;
  ASSERT_TRUE(parsed.ParseFromString(view.example_list_with_context().examples(0)));
  EXPECT_EQ(parsed.features().feature().at("x").float_list().value(0), 1.5f);
}

TEST(AnyTest, SignatureDefMapTypeUrl) {
  tensorflow::serving::SignatureDefMap map;
  auto& sig = (*map.mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  (*sig.mutable_inputs())["x"].set_name("x:0");
  tensorflow::serving::GetModelMetadataResponse response;
  (*response.mutable_metadata())["signature_def"].PackFrom(map);
  EXPECT_EQ(response.metadata().at("signature_def").type_url(),
            "type.googleapis.com/tensorflow.serving.SignatureDefMap");
}

// ---------------------------------------------------------------------------
// Real files written by TensorFlow / TF Serving (shared/testdata/tfserving).
// Skipped when that directory is not present on the machine.

std::string TestdataRoot() {
  // The Makefile passes ../shared (reference data beside the checkout) when it exists.
  const char* env = std::getenv("TENSORD_SHARED_DIR");
  return env != nullptr ? std::string(env) + "/testdata/tfserving" : "";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// Fails on any field this tree of messages did not recognise.
void ExpectNoUnknownFields(const Message& m, const std::string& path) {
  const Reflection* r = m.GetReflection();
  EXPECT_TRUE(r->GetUnknownFields(m).empty())
      << path << " (" << m.GetDescriptor()->full_name() << ") has unknown fields";
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(m, f); ++i) {
        ExpectNoUnknownFields(r->GetRepeatedMessage(m, f, i), path + "." + f->name());
      }
    } else {
      ExpectNoUnknownFields(r->GetMessage(m, f), path + "." + f->name());
    }
  }
}

TEST(RealFilesTest, SavedModelsParseWithoutUnknownFields) {
  const std::string root = TestdataRoot() + "/servables/tensorflow/testdata/";
  struct stat st;
  if (stat(root.c_str(), &st) != 0) GTEST_SKIP() << "no testdata at " << root;
  const char* models[] = {
      "saved_model_half_plus_two_cpu/00000123",
      "saved_model_half_plus_two_tf2_cpu/00000123",
      "saved_model_half_plus_three/00000123",
      "saved_model_counter/00000123",
      "saved_model_half_plus_two_gpu_trt/00000123",
      "saved_model_half_plus_two_mlmd/00000123",
  };
  for (const char* model : models) {
    SCOPED_TRACE(model);
    std::string bytes;
    ASSERT_TRUE(ReadFile(root + model + "/saved_model.pb", &bytes));
    tensorflow::SavedModel saved_model;
    ASSERT_TRUE(saved_model.ParseFromString(bytes));
    ASSERT_GE(saved_model.meta_graphs_size(), 1);
    ExpectNoUnknownFields(saved_model, "SavedModel");
    // Re-serialising the parsed message gives back the same number of bytes.
    EXPECT_EQ(saved_model.ByteSizeLong(), bytes.size());
    EXPECT_GT(saved_model.meta_graphs(0).signature_def_size(), 0);
  }

  std::string fp_bytes;
  ASSERT_TRUE(ReadFile(root + "saved_model_half_plus_two_tf2_cpu/00000123/fingerprint.pb",
                       &fp_bytes));
  tensorflow::FingerprintDef fingerprint;
  ASSERT_TRUE(fingerprint.ParseFromString(fp_bytes));
  ExpectNoUnknownFields(fingerprint, "FingerprintDef");
  EXPECT_NE(fingerprint.saved_model_checksum(), 0u);

  std::string smc_bytes;
  ASSERT_TRUE(ReadFile(root +
                           "saved_model_half_plus_two_cpu_with_saved_model_config/00000123/"
                           "assets.extra/saved_model_config.pb",
                       &smc_bytes));
  tensorflow::serving::SavedModelConfig smc;
  ASSERT_TRUE(smc.ParseFromString(smc_bytes));
  EXPECT_TRUE(smc.critical());
  EXPECT_EQ(smc.session_overrides().remote_op_remap_config().model_name_remap().at(
                "placeholder_model_name"),
            "model_name");
  ASSERT_EQ(smc.tfrt_runtime_config().config_size(), 1);
  EXPECT_EQ(smc.tfrt_runtime_config().config(0).type_url(),
            "type.googleapis.com/tensorflow.tfrt_stub.TestConfig1");
  EXPECT_EQ(smc.SerializeAsString(), smc_bytes);
}

TEST(RealFilesTest, TextConfigsFromTfServingTestdata) {
  const std::string root = TestdataRoot() + "/servables/tensorflow/testdata/";
  std::string text;
  if (!ReadFile(root + "good_model_config.txt", &text)) GTEST_SKIP() << "no testdata";
  tensorflow::serving::ModelServerConfig config;
  ASSERT_TRUE(TextFormat::ParseFromString(text, &config));
  EXPECT_EQ(config.model_config_list().config_size(), 2);

  ASSERT_TRUE(ReadFile(root + "batching_config.txt", &text));
  tensorflow::serving::BatchingParameters batching;
  ASSERT_TRUE(TextFormat::ParseFromString(text, &batching));
  EXPECT_EQ(batching.num_batch_threads().value(), 8);

  ASSERT_TRUE(ReadFile(root + "monitoring_config.txt", &text));
  tensorflow::serving::MonitoringConfig monitoring;
  ASSERT_TRUE(TextFormat::ParseFromString(text, &monitoring));
  EXPECT_EQ(monitoring.prometheus_config().path(), "/monitoring/prometheus/metrics");
}

TEST(RealFilesTest, MetadataGoldenJsonParsesAsSignatureDefs) {
  // The golden files nest a SignatureDefMap under metadata.signature_def
  // (hand-assembled, not standard Any JSON); parse that inner object.
  const std::string root = TestdataRoot() + "/servables/tensorflow/testdata/";
  const char* goldens[] = {
      "half_plus_two_model_metadata.json",
      "saved_model_half_plus_two_2_versions_metadata.json",
      "saved_model_half_plus_two_tf2_2_versions_metadata.json",
  };
  for (const char* golden : goldens) {
    SCOPED_TRACE(golden);
    std::string json;
    if (!ReadFile(root + golden, &json)) GTEST_SKIP() << "no testdata";
    google::protobuf::Struct doc;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &doc).ok());
    const auto& sig_map =
        doc.fields().at("metadata").struct_value().fields().at("signature_def").struct_value();
    std::string inner;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(sig_map, &inner).ok());
    tensorflow::serving::SignatureDefMap map;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(inner, &map).ok()) << inner;
    EXPECT_GT(map.signature_def_size(), 0);

    // Printing it back with TF Serving's JSON options reproduces the golden object.
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    options.preserve_proto_field_names = true;
    std::string printed;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(map, &printed, options).ok());
    google::protobuf::Struct printed_struct;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(printed, &printed_struct).ok());
    // One golden entry (__saved_model_init_op in the TF2 file) omits the empty
    // "defaults" map; drop ours where the golden has none.
    auto* printed_sigs =
        (*printed_struct.mutable_fields())["signature_def"].mutable_struct_value()->mutable_fields();
    const auto& golden_sigs = sig_map.fields().at("signature_def").struct_value().fields();
    for (auto& entry : *printed_sigs) {
      auto golden = golden_sigs.find(entry.first);
      if (golden == golden_sigs.end()) continue;
      if (golden->second.struct_value().fields().count("defaults") == 0) {
        entry.second.mutable_struct_value()->mutable_fields()->erase("defaults");
      }
    }
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(printed_struct, sig_map))
        << printed;
  }
}

}  // namespace
