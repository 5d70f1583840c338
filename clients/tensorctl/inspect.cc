#include "clients/tensorctl/inspect.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "protos/tensorflow/types.pb.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::tensorflow::MetaGraphDef;
using ::tensorflow::SignatureDef;
using ::tensorflow::TensorInfo;

std::string DtypeName(int dtype) {
  if (!::tensorflow::DataType_IsValid(dtype)) return absl::StrCat("DT_UNKNOWN_", dtype);
  return ::tensorflow::DataType_Name(static_cast<::tensorflow::DataType>(dtype));
}

std::string TagsText(const MetaGraphDef& meta) {
  return absl::StrCat("'", absl::StrJoin(meta.meta_info_def().tags(), ", "), "'");
}

template <typename Map>
std::map<std::string, const typename Map::mapped_type*> Sorted(const Map& m) {
  std::map<std::string, const typename Map::mapped_type*> out;
  for (const auto& [key, value] : m) out[key] = &value;
  return out;
}

std::string TensorNameText(const TensorInfo& info) {
  switch (info.encoding_case()) {
    case TensorInfo::kName: return absl::StrCat("name: ", info.name());
    case TensorInfo::kCooSparse:
      return absl::StrCat("COO sparse tensor: values=", info.coo_sparse().values_tensor_name(),
                          ", indices=", info.coo_sparse().indices_tensor_name(),
                          ", dense_shape=", info.coo_sparse().dense_shape_tensor_name());
    case TensorInfo::kCompositeTensor: {
      std::vector<std::string> names;
      for (const TensorInfo& c : info.composite_tensor().components()) names.push_back(c.name());
      return absl::StrCat("composite tensor with components: ", absl::StrJoin(names, ", "));
    }
    default: return "name: (none)";
  }
}

void AppendTensorInfos(const char* kind,
                       const google::protobuf::Map<std::string, TensorInfo>& infos,
                       std::string* out) {
  absl::StrAppend(out, "  The given SavedModel SignatureDef contains the following ", kind,
                  "(s):\n");
  for (const auto& [alias, info] : Sorted(infos)) {
    absl::StrAppend(out, "    ", kind, "s['", alias, "'] tensor_info:\n");
    absl::StrAppend(out, "        dtype: ", DtypeName(info->dtype()), "\n");
    absl::StrAppend(out, "        shape: ", ShapeText(info->tensor_shape()), "\n");
    absl::StrAppend(out, "        ", TensorNameText(*info), "\n");
  }
}

json::Value ShapeJson(const ::tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return json::Value();
  json::Value dims = json::Value::Array();
  for (const auto& d : shape.dim()) dims.Append(json::Value::Int(d.size()));
  return dims;
}

json::Value TensorInfosJson(const google::protobuf::Map<std::string, TensorInfo>& infos) {
  json::Value out = json::Value::Object();
  for (const auto& [alias, info] : Sorted(infos)) {
    json::Value t = json::Value::Object();
    t.Set("name", json::Value::String(info->name()));
    t.Set("dtype", json::Value::String(DtypeName(info->dtype())));
    t.Set("shape", ShapeJson(info->tensor_shape()));
    if (info->has_coo_sparse()) {
      json::Value coo = json::Value::Object();
      coo.Set("values", json::Value::String(info->coo_sparse().values_tensor_name()));
      coo.Set("indices", json::Value::String(info->coo_sparse().indices_tensor_name()));
      coo.Set("dense_shape", json::Value::String(info->coo_sparse().dense_shape_tensor_name()));
      t.Set("coo_sparse", std::move(coo));
    }
    out.Set(alias, std::move(t));
  }
  return out;
}

}  // namespace

std::string ShapeText(const ::tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown rank";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) dims.push_back(absl::StrCat(d.size()));
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

std::string InspectText(const std::vector<const MetaGraphDef*>& meta_graphs) {
  std::string out = "The given SavedModel contains the following tag-sets:\n";
  for (const MetaGraphDef* meta : meta_graphs) absl::StrAppend(&out, TagsText(*meta), "\n");
  for (const MetaGraphDef* meta : meta_graphs) {
    absl::StrAppend(&out, "\nMetaGraphDef with tag-set: ", TagsText(*meta),
                    " contains the following SignatureDefs:\n");
    for (const auto& [key, sig] : Sorted(meta->signature_def())) {
      absl::StrAppend(&out, "\nsignature_def['", key, "']:\n");
      AppendTensorInfos("input", sig->inputs(), &out);
      AppendTensorInfos("output", sig->outputs(), &out);
      absl::StrAppend(&out, "  Method name is: ", sig->method_name(), "\n");
    }
  }
  return out;
}

json::Value InspectJson(const std::vector<const MetaGraphDef*>& meta_graphs) {
  json::Value graphs = json::Value::Array();
  for (const MetaGraphDef* meta : meta_graphs) {
    json::Value tags = json::Value::Array();
    for (const std::string& tag : meta->meta_info_def().tags()) {
      tags.Append(json::Value::String(tag));
    }
    json::Value sigs = json::Value::Object();
    for (const auto& [key, sig] : Sorted(meta->signature_def())) {
      json::Value s = json::Value::Object();
      s.Set("method_name", json::Value::String(sig->method_name()));
      s.Set("inputs", TensorInfosJson(sig->inputs()));
      s.Set("outputs", TensorInfosJson(sig->outputs()));
      sigs.Set(key, std::move(s));
    }
    json::Value g = json::Value::Object();
    g.Set("tags", std::move(tags));
    g.Set("signatures", std::move(sigs));
    graphs.Append(std::move(g));
  }
  json::Value root = json::Value::Object();
  root.Set("meta_graphs", std::move(graphs));
  return root;
}

}  // namespace tensorctl
}  // namespace tensord
