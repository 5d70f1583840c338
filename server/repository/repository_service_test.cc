#include "server/repository/repository_service.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include "gtest/gtest.h"

namespace tensord {
namespace {

namespace fs = std::filesystem;

// Over a real loopback server, as clients see it: three models added out of name order, one
// with two versions and one with no version directory at all. Placed on the CPU, no version
// holds device memory.
TEST(RepositoryServiceTest, ListModelsOverGrpc) {
  const fs::path tmp = fs::path(std::getenv("TEST_TMPDIR")) / "repository";
  const fs::path mlp_version = fs::absolute("tests/testdata/keras_mlp/1");
  fs::create_directories(tmp / "multi");
  fs::create_directory_symlink(mlp_version, tmp / "multi" / "1");
  fs::create_directory_symlink(mlp_version, tmp / "multi" / "2");
  fs::create_directories(tmp / "empty");

  ModelManagerOptions options;
  options.load.placement.policy.kind = DevicePolicy::Kind::kCpu;
  ModelManager manager(options);
  ModelConfig multi;
  multi.name = "multi";
  multi.base_path = (tmp / "multi").string();
  multi.policy = VersionPolicy::kAll;
  ASSERT_TRUE(manager.AddModel(multi).ok());
  ASSERT_TRUE(manager.AddModel("mlp", fs::absolute("tests/testdata/keras_mlp")).ok());
  ASSERT_TRUE(manager.AddModel("empty", (tmp / "empty").string()).ok());

  ModelRepositoryServiceImpl service(&manager);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_NE(port, 0);

  auto stub = v1::ModelRepository::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::ListModelsResponse response;
  grpc::Status status = stub->ListModels(&context, v1::ListModelsRequest(), &response);
  server->Shutdown();
  ASSERT_TRUE(status.ok()) << status.error_message();

  v1::ListModelsResponse expected;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    models { name: "empty" }
    models {
      name: "mlp"
      model_version_status { version: 1 state: AVAILABLE status {} }
      device_memory_bytes { key: 1 value: 0 }
    }
    models {
      name: "multi"
      model_version_status { version: 2 state: AVAILABLE status {} }
      model_version_status { version: 1 state: AVAILABLE status {} }
      device_memory_bytes { key: 1 value: 0 }
      device_memory_bytes { key: 2 value: 0 }
    }
  )pb", &expected));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(response, expected))
      << response.DebugString();
}

TEST(RepositoryServiceTest, NoModels) {
  ModelManager manager;
  absl::StatusOr<v1::ListModelsResponse> response = ListModels(manager);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->models_size(), 0);
}

}  // namespace
}  // namespace tensord
