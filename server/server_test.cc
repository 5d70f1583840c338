#include "server/server.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "protos/grpc_health/health.grpc.pb.h"

namespace tensord {
namespace {

// UNIX socket paths are limited to 107 bytes, too few for TEST_TMPDIR.
std::string SocketPath(const std::string& name) {
  return "/tmp/tensord_server_test_" + std::to_string(getpid()) + "_" + name + ".sock";
}

ServerOptions MlpOptions() {
  ServerOptions options;
  options.grpc_port = 0;  // no TCP listener: the tests use a UNIX socket
  options.grpc_socket_path = SocketPath("main");
  options.models = {ModelConfig{"mlp", std::filesystem::absolute("tests/testdata/keras_mlp")}};
  options.manager.max_num_load_retries = 0;
  options.drain_timeout = absl::Seconds(1);
  return options;
}

TEST(ServerTest, ServesOnAUnixSocketAndDrains) {
  Server server(MlpOptions());
  ASSERT_TRUE(server.Start().ok());
  auto channel =
      grpc::CreateChannel("unix:" + SocketPath("main"), grpc::InsecureChannelCredentials());
  auto health = ::grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  ::grpc::health::v1::HealthCheckRequest request;
  ::grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(health->Check(&context, request, &response).ok());
  EXPECT_EQ(response.status(), ::grpc::health::v1::HealthCheckResponse::SERVING);
  server.Drain();
  server.Drain();  // idempotent
  grpc::ClientContext after;
  after.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  EXPECT_FALSE(health->Check(&after, request, &response).ok());
}

TEST(ServerTest, StartFailsOnAnUnreadableBasePath) {
  ServerOptions options = MlpOptions();
  options.models[0].base_path = "/nonexistent/models/mlp";
  Server server(options);
  absl::Status s = server.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("model mlp"), std::string::npos) << s;
}

TEST(ServerTest, RestPortInUseIsUnavailable) {
  // Hold a listening socket on some port, then ask the server for the same one.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ServerOptions options = MlpOptions();
  options.grpc_socket_path = SocketPath("rest");
  options.rest_port = ntohs(address.sin_port);
  Server server(options);
  absl::Status s = server.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("REST"), std::string::npos) << s;
  close(fd);
}

}  // namespace
}  // namespace tensord
