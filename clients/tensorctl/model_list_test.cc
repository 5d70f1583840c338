#include "clients/tensorctl/model_list.h"

#include <google/protobuf/text_format.h>

#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

TEST(ModelListTest, OneRowPerVersionWithErrors) {
  v1::ListModelsResponse response;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    models { name: "empty" }
    models {
      name: "half_plus_two"
      model_version_status { version: 123 state: AVAILABLE status {} }
      model_version_status {
        version: 7
        state: END
        status { error_code: NOT_FOUND error_message: "no saved_model.pb" }
      }
    }
  )pb", &response));
  EXPECT_EQ(ModelListText(response),
            "MODEL          VERSION  STATE\n"
            "empty          -        no versions\n"
            "half_plus_two  123      AVAILABLE\n"
            "half_plus_two  7        END (NOT_FOUND: no saved_model.pb)\n");
}

TEST(ModelListTest, GpuMemoryColumnWhenSomeVersionHoldsSome) {
  v1::ListModelsResponse response;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    models { name: "none" }
    models {
      name: "bert"
      model_version_status { version: 3 state: AVAILABLE status {} }
      model_version_status { version: 2 state: AVAILABLE status {} }
      model_version_status { version: 1 state: END status {} }
      device_memory_bytes { key: 3 value: 438124544 }
      device_memory_bytes { key: 2 value: 0 }
    }
    models {
      name: "mlp"
      model_version_status { version: 1 state: AVAILABLE status {} }
      device_memory_bytes { key: 1 value: 5120 }
    }
  )pb", &response));
  EXPECT_EQ(ModelListText(response),
            "MODEL  VERSION  GPU MEMORY  STATE\n"
            "none   -        -           no versions\n"
            "bert   3        418 MiB     AVAILABLE\n"
            "bert   2        0 B         AVAILABLE\n"
            "bert   1        -           END\n"
            "mlp    1        5.00 KiB    AVAILABLE\n");
}

TEST(ModelListTest, NoModelsIsTheHeaderAlone) {
  EXPECT_EQ(ModelListText(v1::ListModelsResponse()), "MODEL  VERSION  STATE\n");
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
