#include "server/rest/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"

namespace tensord {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A raw TCP connection, for clients that misbehave.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawClient() { close(fd_); }
  bool connected() const { return connected_; }
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Everything until the server closes the connection or `timeout` passes; with `until`, only
  // until the bytes read end with it.
  std::string ReadAll(milliseconds timeout, const std::string& until = "") {
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    std::string out;
    char buffer[4096];
    for (;;) {
      ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return out;
      out.append(buffer, n);
      if (!until.empty() && absl::EndsWith(out, until)) return out;
    }
  }

 private:
  int fd_;
  bool connected_ = false;
};

HttpServerOptions LocalOptions() {
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.num_threads = 1;
  return options;
}

HttpResponse Echo(const HttpRequest& request) {
  return {200, request.method + " " + request.path + " " + request.body, "text/plain"};
}

TEST(HttpServerTest, ServesRequestsWithDecodedPathsAndBodies) {
  HttpServer server(LocalOptions(), Echo);
  ASSERT_TRUE(server.Start().ok());
  ASSERT_GT(server.port(), 0);
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result get = client.Get("/v1/models/a%20b?x=1");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "GET /v1/models/a b ");
  EXPECT_EQ(get->get_header_value("Content-Type"), "text/plain");
  // Keep-alive: the same connection serves the next request.
  httplib::Result post = client.Post("/p", std::string(100000, 'x'), "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->body, "POST /p " + std::string(100000, 'x'));
}

TEST(HttpServerTest, StatusCodesOutsideRfc2616HaveTheirReasonPhrase) {
  HttpServer server(LocalOptions(), [](const HttpRequest&) {
    return HttpResponse{429, "{}", "application/json"};
  });
  ASSERT_TRUE(server.Start().ok());
  RawClient raw(server.port());
  ASSERT_TRUE(raw.connected());
  raw.Send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(raw.ReadAll(milliseconds(5000)).rfind("HTTP/1.1 429 Too Many Requests\r\n", 0), 0u);
}

// The reason for an event loop: with one worker, clients that stall mid-headers or mid-body
// hold only their connections, and a well-behaved client is still answered at once.
TEST(HttpServerTest, StalledClientsDoNotHoldWorkers) {
  HttpServer server(LocalOptions(), Echo);
  ASSERT_TRUE(server.Start().ok());
  std::vector<std::unique_ptr<RawClient>> stalled;
  for (int i = 0; i < 16; ++i) {
    stalled.push_back(std::make_unique<RawClient>(server.port()));
    ASSERT_TRUE(stalled.back()->connected());
    stalled.back()->Send(i % 2 == 0
                             ? "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\nab"
                             : "GET /x HTTP/1.1\r\nHo");
  }
  const auto start = steady_clock::now();
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result r = client.Get("/ok");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "GET /ok ");
  EXPECT_LT(steady_clock::now() - start, milliseconds(2000));
}

TEST(HttpServerTest, InlineRequestsAnswerWhileEveryWorkerIsBusy) {
  absl::Notification release;
  HttpServerOptions options = LocalOptions();
  options.run_inline = [](const std::string&, const std::string& path) { return path == "/probe"; };
  HttpServer server(options, [&](const HttpRequest& request) {
    if (request.path == "/slow") release.WaitForNotification();
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  auto slow = std::async(std::launch::async, [&] {
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result r = client.Get("/slow");
    return r ? r->status : -1;
  });
  std::this_thread::sleep_for(milliseconds(200));  // the worker is now inside the handler
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result probe = client.Get("/probe");
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->body, "GET /probe ");
  release.Notify();
  EXPECT_EQ(slow.get(), 200);
}

TEST(HttpServerTest, AFullQueueIsRefusedWith503) {
  absl::Notification release;
  HttpServerOptions options = LocalOptions();
  options.max_queued_requests = 1;
  options.error_response = [](const std::string& message) {
    return HttpResponse{0, "{\"error\": \"" + message + "\"}", "application/json"};
  };
  HttpServer server(options, [&](const HttpRequest& request) {
    release.WaitForNotification();
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  const auto get = [&] {
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result r = client.Get("/q");
    return r ? std::make_pair(r->status, r->body) : std::make_pair(-1, std::string());
  };
  auto running = std::async(std::launch::async, get);
  std::this_thread::sleep_for(milliseconds(200));
  auto queued = std::async(std::launch::async, get);
  std::this_thread::sleep_for(milliseconds(200));
  std::pair<int, std::string> refused = get();
  EXPECT_EQ(refused.first, 503);
  EXPECT_NE(refused.second.find("Too many REST requests are waiting (1)"), std::string::npos)
      << refused.second;
  release.Notify();
  EXPECT_EQ(running.get().first, 200);
  EXPECT_EQ(queued.get().first, 200);
}

// A group's admit hook runs as each of its requests arrives: here it refuses a third request of
// group "a" at once while two are held (told the size of the body it did not read), and lets
// requests of "a" reach a worker only when it calls `ready`, from another thread, in the order
// it chooses; meanwhile the worker serves group "b", and each handler sees its request's hold.
TEST(HttpServerTest, AGroupsAdmitHookRefusesAtOnceOrParksUntilReady) {
  HttpServerOptions options = LocalOptions();  // one worker
  std::mutex mu;
  std::vector<std::function<void()>> readies;  // of the parked "a" requests, in arrival order
  std::atomic<int> held{0};
  HttpServerOptions::QueueGroups groups;
  groups.group = [](const std::string&, const std::string& path) { return path.substr(1, 1); };
  groups.admit = [&](HttpRequest* request, int64_t body_bytes, const std::string& group,
                     std::function<void()> ready) -> std::optional<HttpResponse> {
    if (group != "a") {
      ready();  // at once, from inside the hook
      return std::nullopt;
    }
    if (held.load() >= 2) {
      return HttpResponse{429, "full: " + group + " " + request->path + " " +
                                   std::to_string(body_bytes),
                          "text/plain"};
    }
    ++held;
    request->hold = std::shared_ptr<std::string>(new std::string(request->path),
                                                 [&](std::string* p) {
                                                   --held;
                                                   delete p;
                                                 });
    std::lock_guard<std::mutex> lock(mu);
    readies.push_back(std::move(ready));
    return std::nullopt;
  };
  options.queue_groups = groups;
  std::mutex order_mu;
  std::vector<std::string> order;  // handlers, as they ran
  HttpServer server(options, [&](const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(order_mu);
    order.push_back(request.path);
    if (request.hold != nullptr) {
      EXPECT_EQ(*static_cast<std::string*>(request.hold.get()), request.path);
    }
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  const auto get = [&](const std::string& path) {
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result r = client.Get(path);
    return r ? std::make_pair(r->status, r->body) : std::make_pair(-1, std::string());
  };
  auto a1 = std::async(std::launch::async, get, "/a1");
  std::this_thread::sleep_for(milliseconds(200));
  auto a2 = std::async(std::launch::async, get, "/a2");
  std::this_thread::sleep_for(milliseconds(200));
  {
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result r = client.Post("/a3", "abcde", "text/plain");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 429);
    EXPECT_EQ(r->body, "full: a /a3 5");
  }
  // Parked requests hold no worker: the only worker answers "b" at once.
  EXPECT_EQ(get("/b1"), std::make_pair(200, std::string("GET /b1 ")));
  EXPECT_EQ(a1.wait_for(milliseconds(0)), std::future_status::timeout);
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    ready.swap(readies);
  }
  ASSERT_EQ(ready.size(), 2u);
  std::thread([&] { ready[1](); }).join();  // the later one first
  EXPECT_EQ(a2.get(), std::make_pair(200, std::string("GET /a2 ")));
  EXPECT_EQ(a1.wait_for(milliseconds(100)), std::future_status::timeout);
  std::thread([&] { ready[0](); }).join();
  EXPECT_EQ(a1.get(), std::make_pair(200, std::string("GET /a1 ")));
  EXPECT_EQ(order, (std::vector<std::string>{"/b1", "/a2", "/a1"}));
  // The holds went with their handlers: the group takes new requests again.
  EXPECT_EQ(held.load(), 0);
}

// Several event loops accept on the one port: while one loop is held up (here by an inline
// handler that blocks it, as a loop starved of CPU would be), new connections are accepted and
// answered by the others.
TEST(HttpServerTest, ALoopHeldUpDoesNotHoldConnectionsTheOthersAccept) {
  absl::Notification release;
  HttpServerOptions options = LocalOptions();
  options.num_io_threads = 3;
  options.run_inline = [](const std::string&, const std::string& path) {
    return path == "/hold" || path == "/probe";
  };
  HttpServer server(options, [&](const HttpRequest& request) {
    if (request.path == "/hold") release.WaitForNotification();
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.num_io_threads(), 3);
  auto held = std::async(std::launch::async, [&] {
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result r = client.Get("/hold");
    return r ? r->status : -1;
  });
  std::this_thread::sleep_for(milliseconds(200));  // one loop is now inside the handler
  for (int i = 0; i < 8; ++i) {
    const auto start = steady_clock::now();
    httplib::Client client("127.0.0.1", server.port());
    httplib::Result probe = client.Get("/probe");
    ASSERT_TRUE(probe) << i;
    EXPECT_EQ(probe->body, "GET /probe ");
    EXPECT_LT(steady_clock::now() - start, milliseconds(2000));
  }
  release.Notify();
  EXPECT_EQ(held.get(), 200);
}

TEST(HttpServerTest, DefaultLoopCountIsOnePerCpuWithinItsBounds) {
  HttpServer server(LocalOptions(), Echo);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_GE(server.num_io_threads(), HttpServerOptions::kMinIoThreads);
  EXPECT_LE(server.num_io_threads(), HttpServerOptions::kMaxIoThreads);
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result r = client.Get("/x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "GET /x ");
}

TEST(HttpServerTest, BodiesOverTheLimitAre413UnreadAndTheConnectionCloses) {
  HttpServerOptions options = LocalOptions();
  options.max_body_bytes = 1000;
  HttpServer server(options, Echo);
  ASSERT_TRUE(server.Start().ok());
  RawClient raw(server.port());
  ASSERT_TRUE(raw.connected());
  // Declares 10 MB and sends none of it: the answer must not wait for the body.
  raw.Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\n\r\n");
  const auto start = steady_clock::now();
  const std::string reply = raw.ReadAll(milliseconds(5000));
  EXPECT_LT(steady_clock::now() - start, milliseconds(4000));  // closed, not timed out
  EXPECT_EQ(reply.rfind("HTTP/1.1 413 ", 0), 0u) << reply;
  EXPECT_NE(reply.find("Connection: close"), std::string::npos) << reply;
  // A body over the limit that arrives at once, with its headers, is refused too.
  RawClient at_once(server.port());
  ASSERT_TRUE(at_once.connected());
  at_once.Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1500\r\n\r\n" +
               std::string(1500, 'a'));
  EXPECT_EQ(at_once.ReadAll(milliseconds(5000)).rfind("HTTP/1.1 413 ", 0), 0u);
  // A body that fits is served.
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result ok = client.Post("/x", std::string(1000, 'a'), "text/plain");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

// The server reads whatever a socket holds at each wakeup, not 4 KB at a time: a body of
// megabytes sent at once, with a second request pipelined right behind it, arrives whole and in
// order (a body over the limit that arrives at once: BodiesOverTheLimitAre413...).
TEST(HttpServerTest, LargeBodiesAndPipelinedRequestsArriveWhole) {
  HttpServer server(LocalOptions(), Echo);
  ASSERT_TRUE(server.Start().ok());
  std::string body(3 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i * 7919 % 26);
  RawClient raw(server.port());
  ASSERT_TRUE(raw.connected());
  raw.Send("POST /big HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body + "POST /next HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\ntail");
  const std::string replies = raw.ReadAll(milliseconds(10000), "POST /next tail");
  const size_t first = replies.find("POST /big " + body);
  const size_t second = replies.find("POST /next tail");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
}

TEST(HttpServerTest, GzipOnlyForClientsThatAcceptItAndOnlyAboveTheThreshold) {
  HttpServerOptions options = LocalOptions();
  options.gzip_min_bytes = 1000;
  options.run_inline = [](const std::string&, const std::string& path) {
    return path == "/inline";
  };
  const std::string big(50000, 'z');
  HttpServer server(options, [&](const HttpRequest& request) {
    return HttpResponse{200, request.path == "/small" ? "small" : big, "text/plain"};
  });
  ASSERT_TRUE(server.Start().ok());
  const auto get = [&](const std::string& path, const char* accept) {
    RawClient raw(server.port());
    raw.Send("GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" +
             (accept != nullptr ? std::string("Accept-Encoding: ") + accept + "\r\n" : "") +
             "\r\n");
    return raw.ReadAll(milliseconds(5000));
  };
  const std::string gzipped = get("/big", "br, gzip");
  EXPECT_NE(gzipped.find("Content-Encoding: gzip"), std::string::npos);
  // The compressed body is what Gzip makes of it, and far smaller.
  const std::string expected = HttpServer::Gzip(big);
  ASSERT_FALSE(expected.empty());
  EXPECT_LT(expected.size(), big.size() / 20);
  EXPECT_EQ(gzipped.substr(gzipped.size() - expected.size()), expected);
  EXPECT_EQ(get("/big", "gzip;q=0").find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(get("/big", "br").find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(get("/big", nullptr).find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(get("/small", "gzip").find("Content-Encoding"), std::string::npos);
  // Regression: replies made on the event loop said gzip and were not compressed.
  const std::string inline_reply = get("/inline", "gzip");
  EXPECT_EQ(inline_reply.find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(inline_reply.substr(inline_reply.size() - big.size()), big);
  // And a real client decompresses it to the original.
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result r = client.Get("/big", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, big);
}

TEST(HttpServerTest, StopAnswersInFlightRequestsAndDoesNotWaitForStalledClients) {
  absl::Notification entered, release;
  HttpServerOptions options = LocalOptions();
  options.timeout_ms = 20000;
  HttpServer server(options, [&](const HttpRequest& request) {
    entered.Notify();
    release.WaitForNotification();
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  const int port = server.port();
  RawClient stalled(port);
  stalled.Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n");
  auto in_flight = std::async(std::launch::async, [&] {
    httplib::Client client("127.0.0.1", port);
    httplib::Result r = client.Post("/work", "body", "text/plain");
    return r ? r->body : std::string("no answer");
  });
  entered.WaitForNotification();
  const auto start = steady_clock::now();
  auto stopped = std::async(std::launch::async, [&] { server.Stop(); });
  std::this_thread::sleep_for(milliseconds(300));
  // New connections are refused once Stop has begun.
  RawClient late(port);
  EXPECT_FALSE(late.connected() && !late.ReadAll(milliseconds(500)).empty());
  release.Notify();
  EXPECT_EQ(in_flight.get(), "POST /work body");
  stopped.get();
  EXPECT_LT(steady_clock::now() - start, milliseconds(5000));
  EXPECT_EQ(stalled.ReadAll(milliseconds(1000)), "");  // closed without an answer
  EXPECT_EQ(server.port(), 0);
}

// Found by the soak test: a request whose bytes were still arriving when Stop began had its
// connection closed without an answer.
TEST(HttpServerTest, RequestsArrivingDuringStopAreRefusedNotCutOff) {
  HttpServer server(LocalOptions(), Echo);
  ASSERT_TRUE(server.Start().ok());
  RawClient raw(server.port());
  // One whole request first, so that the connection has been accepted (connections still in
  // the listen backlog are reset when the listener closes).
  raw.Send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_NE(raw.ReadAll(milliseconds(3000), "GET /first ").find("200 OK"), std::string::npos);
  raw.Send("GET /late HTTP/1.1\r\nHost: a\r\n");
  auto stopped = std::async(std::launch::async, [&] { server.Stop(); });
  std::this_thread::sleep_for(milliseconds(50));
  raw.Send("\r\n");
  const std::string reply = raw.ReadAll(milliseconds(3000));
  EXPECT_EQ(reply.rfind("HTTP/1.1 503 ", 0), 0u) << reply;
  EXPECT_NE(reply.find("Connection: close"), std::string::npos) << reply;
  stopped.get();
}

TEST(HttpServerTest, AClientThatLeavesBeforeItsReplyDoesNotHarmTheServer) {
  absl::Notification entered, release;
  HttpServer server(LocalOptions(), [&](const HttpRequest& request) {
    if (request.path == "/leave") {
      entered.Notify();
      release.WaitForNotification();
    }
    return Echo(request);
  });
  ASSERT_TRUE(server.Start().ok());
  {
    RawClient leaving(server.port());
    leaving.Send("GET /leave HTTP/1.1\r\nHost: a\r\n\r\n");
    entered.WaitForNotification();
  }  // closed while its request runs
  release.Notify();
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result r = client.Get("/next");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "GET /next ");
}

TEST(HttpServerTest, TlsContextErrorsNameTheField) {
  HttpServerOptions options = LocalOptions();
  options.ssl.emplace();
  options.ssl->set_server_cert("not a certificate");
  HttpServer server(options, Echo);
  absl::Status s = server.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("server_cert"), std::string::npos) << s;
}

}  // namespace
}  // namespace tensord
