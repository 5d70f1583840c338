#include "server/health/health_service.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace tensord {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

ModelManagerOptions NoRetries() {
  ModelManagerOptions options;
  options.max_num_load_retries = 0;
  return options;
}

TEST(HealthServiceTest, ReportsServerAndPerModelHealth) {
  ModelManager manager(NoRetries());
  ServerHealth health(&manager);
  // No models configured yet: nothing is unavailable.
  EXPECT_EQ(*health.Check(""), HealthCheckResponse::SERVING);

  ASSERT_TRUE(manager.AddModel("mlp", std::filesystem::absolute("tests/testdata/keras_mlp")).ok());
  EXPECT_EQ(*health.Check(""), HealthCheckResponse::SERVING);
  EXPECT_EQ(*health.Check("mlp"), HealthCheckResponse::SERVING);
  EXPECT_EQ(*health.Check("tensorflow.serving.PredictionService"),
            HealthCheckResponse::SERVING);

  // A model whose only version fails to load makes the server NOT_SERVING, the good model
  // stays SERVING.
  const std::string bad = std::string(std::getenv("TEST_TMPDIR")) + "/bad_model";
  std::filesystem::create_directories(bad + "/1");
  ASSERT_TRUE(manager.AddModel("bad", bad).ok());
  EXPECT_EQ(*health.Check(""), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(*health.Check("bad"), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(*health.Check("mlp"), HealthCheckResponse::SERVING);
  EXPECT_EQ(health.UnavailableModels(), std::vector<std::string>{"bad"});

  auto unknown = health.Check("nope");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

TEST(HealthServiceTest, DrainingIsNotServing) {
  ModelManager manager(NoRetries());
  ServerHealth health(&manager);
  ASSERT_TRUE(manager.AddModel("mlp", std::filesystem::absolute("tests/testdata/keras_mlp")).ok());
  EXPECT_EQ(*health.Check(""), HealthCheckResponse::SERVING);
  health.SetDraining();
  EXPECT_TRUE(health.draining());
  EXPECT_EQ(*health.Check(""), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(*health.Check("mlp"), HealthCheckResponse::NOT_SERVING);
}

}  // namespace
}  // namespace tensord
