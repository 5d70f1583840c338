#include "server/health/health_service.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace tensord {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

TEST(HealthServiceTest, ReportsServerAndPerModelHealth) {
  ModelManager manager;
  // No models configured yet: nothing is unavailable.
  EXPECT_EQ(*CheckHealth(manager, ""), HealthCheckResponse::SERVING);

  ASSERT_TRUE(manager.AddModel("mlp", std::filesystem::absolute("tests/testdata/keras_mlp")).ok());
  EXPECT_EQ(*CheckHealth(manager, ""), HealthCheckResponse::SERVING);
  EXPECT_EQ(*CheckHealth(manager, "mlp"), HealthCheckResponse::SERVING);
  EXPECT_EQ(*CheckHealth(manager, "tensorflow.serving.PredictionService"),
            HealthCheckResponse::SERVING);

  // A model whose only version fails to load makes the server NOT_SERVING, the good model
  // stays SERVING.
  const std::string bad = std::string(std::getenv("TEST_TMPDIR")) + "/bad_model";
  std::filesystem::create_directories(bad + "/1");
  ASSERT_TRUE(manager.AddModel("bad", bad).ok());
  EXPECT_EQ(*CheckHealth(manager, ""), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(*CheckHealth(manager, "bad"), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(*CheckHealth(manager, "mlp"), HealthCheckResponse::SERVING);

  auto unknown = CheckHealth(manager, "nope");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tensord
