#include "server/batching/batching_options.h"

#include <gtest/gtest.h>

#include "google/protobuf/text_format.h"

namespace tensord {
namespace {

absl::StatusOr<BatchingOptions> FromText(const std::string& text) {
  ::tensorflow::serving::BatchingParameters params;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &params)) << text;
  return BatchingOptionsFromProto(params);
}

TEST(BatchingOptionsTest, DefaultsAreTfServings) {
  auto options = FromText("");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->max_batch_size, 1000);
  EXPECT_EQ(options->batch_timeout, absl::ZeroDuration());
  EXPECT_EQ(options->max_enqueued_batches, 10);
  EXPECT_EQ(options->max_execution_batch_size, 1000);
  EXPECT_FALSE(options->enable_large_batch_splitting);
}

TEST(BatchingOptionsTest, ReadsTfServingsExample) {
  auto options = FromText(R"pb(
    max_batch_size { value: 128 }
    batch_timeout_micros { value: 2000 }
    max_enqueued_batches { value: 1000000 }
    num_batch_threads { value: 8 }
    allowed_batch_sizes: 32
    allowed_batch_sizes: 128
    pad_variable_length_inputs: true)pb");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_batch_size, 128);
  EXPECT_EQ(options->batch_timeout, absl::Milliseconds(2));
  EXPECT_EQ(options->num_batch_threads, 8);
  EXPECT_TRUE(options->pad_variable_length_inputs);
  EXPECT_EQ(PaddedBatchSize(*options, 1), 32);
  EXPECT_EQ(PaddedBatchSize(*options, 33), 128);
  EXPECT_EQ(PaddedBatchSize(BatchingOptions(), 7), 7);
}

TEST(BatchingOptionsTest, ValidationMessages) {
  EXPECT_EQ(FromText("max_batch_size { value: 64 } allowed_batch_sizes: 8 allowed_batch_sizes: 32")
                .status()
                .message(),
            "Last entry in allowed_batch_sizes must match max_batch_size; last entry was 32; "
            "expected 64");
  EXPECT_EQ(FromText("max_batch_size { value: 64 } allowed_batch_sizes: 32 allowed_batch_sizes: 8 "
                     "allowed_batch_sizes: 64")
                .status()
                .message(),
            "allowed_batch_sizes entries must be monotonically increasing");
  auto split = FromText(
      "max_batch_size { value: 64 } enable_large_batch_splitting { value: true } "
      "max_execution_batch_size { value: 16 } allowed_batch_sizes: 8 allowed_batch_sizes: 16");
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->max_execution_batch_size, 16);
  EXPECT_EQ(FromText("max_batch_size { value: 0 }").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
