// An event-driven HTTP/1.1 server on libevent's evhttp: one event-loop thread does all socket
// and TLS I/O (accepting, reading whole requests, writing replies) and a pool of worker threads
// runs the handler. A slow or stalled client therefore holds a connection and its buffered
// bytes, never a worker, so probes and other clients keep being answered.
//
// Requests are handed to the handler complete (method, decoded path, body); bodies larger than
// options.max_body_bytes are refused by evhttp with 413 before they are read, and headers
// larger than max_header_bytes likewise. Requests for which options.run_inline returns true are
// answered on the loop thread itself (cheap ones such as health probes: they are answered even
// while every worker is busy). Replies may be gzip-compressed (options.gzip_min_bytes).
//
//   HttpServer server(options, [](const HttpRequest& r) { return HttpResponse{200, "hi"}; });
//   TENSORD_RETURN_IF_ERROR(server.Start());
//   ...
//   server.Stop();   // stops accepting, answers what is in flight, closes every connection
//
// Thread safety: Start and Stop from one thread; the handler runs concurrently on the workers
// and must be thread-safe. Stop (also run by the destructor) returns once every worker is idle.
#ifndef TENSORD_SERVER_REST_HTTP_SERVER_H_
#define TENSORD_SERVER_REST_HTTP_SERVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "protos/serving/ssl_config.pb.h"

struct event_base;
struct evhttp;
struct evhttp_bound_socket;
struct evhttp_request;
struct ssl_ctx_st;

namespace tensord {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded, without the query string
  std::string body;
};

struct HttpResponse {
  int http_status = 200;
  std::string body;
  std::string content_type = "application/json; charset=utf-8";
};

struct HttpServerOptions {
  std::string host = "0.0.0.0";
  int port = 0;           // 0: pick a free port (see HttpServer::port()).
  int num_threads = 0;    // workers running the handler; 0: 4 × hardware threads.
  // A connection that sends or accepts nothing for this long is closed; also how long Stop
  // waits for handlers still running.
  int timeout_ms = 30000;
  int64_t max_body_bytes = int64_t{64} << 20;
  int64_t max_header_bytes = 64 << 10;
  // Requests waiting for a worker; more are answered 503 at once. 0: 16 × num_threads.
  int max_queued_requests = 0;
  // Replies of at least this many bytes are gzip-compressed (level 1, the cheapest) for clients
  // that accept gzip; 0 = never. Replies over kMaxGzipBytes are never compressed.
  int64_t gzip_min_bytes = 0;
  static constexpr int64_t kMaxGzipBytes = int64_t{16} << 20;
  // HTTPS with this key and certificate (PEM); with client_verify, clients must present a
  // certificate that chains to custom_ca (mutual TLS). Unset = plain HTTP.
  std::optional<::tensorflow::serving::SSLConfig> ssl;
  // Requests answered on the event-loop thread; null = none.
  std::function<bool(const std::string& method, const std::string& path)> run_inline;
  // The body of the 503 sent when the worker queue is full or the server is stopping.
  std::function<HttpResponse(const std::string& message)> error_response;

  // Bounds per group of requests (e.g. one group per model) on those waiting for a worker, so
  // that one overloaded group is refused fast instead of filling the whole queue. `group`
  // returns a request's group, "" for none; the caller keeps the set of groups bounded. A
  // request that finds max_queued of its group waiting is answered with `full(request, group)`
  // (on the event loop: it must be cheap).
  struct QueueGroups {
    std::function<std::string(const std::string& method, const std::string& path)> group;
    int max_queued = 0;
    std::function<HttpResponse(const HttpRequest& request, const std::string& group)> full;
  };
  std::optional<QueueGroups> queue_groups;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  HttpServer(HttpServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the port and serves on background threads. UNAVAILABLE when the port cannot be
  // bound; INVALID_ARGUMENT for unusable TLS keys or certificates; FAILED_PRECONDITION when
  // already started.
  absl::Status Start();
  // Stops accepting, answers requests already read (new ones on open connections get 503),
  // waits up to timeout_ms for the handlers, then up to two seconds for the replies to be
  // written and for the requests still arriving to stop (500 ms without one), then closes
  // every connection. Idempotent.
  void Stop();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_; }

  // Gzip of `data` at level 1; exposed for tests.
  static std::string Gzip(const std::string& data);

 private:
  struct Job;
  static void OnRequest(evhttp_request* request, void* self);
  // One waiting job of `group` fewer; mu_ held.
  void LeaveGroup(const std::string& group);
  static void OnReplyReady(int fd, short events, void* job);
  static void OnReplySent(evhttp_request* request, void* self);
  void Reply(evhttp_request* request, HttpResponse response, bool gzip, bool close);
  void WorkerLoop();
  void Finished();

  const HttpServerOptions options_;
  const Handler handler_;
  ssl_ctx_st* ssl_ctx_ = nullptr;
  event_base* base_ = nullptr;
  evhttp* http_ = nullptr;
  evhttp_bound_socket* socket_ = nullptr;
  std::thread loop_;
  std::vector<std::thread> workers_;
  int port_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;           // signals queue_ and unfinished_ changes
  std::deque<std::unique_ptr<Job>> queue_;
  std::map<std::string, int> queued_per_group_;  // waiting jobs of each group that has some
  int running_ = 0;         // jobs a worker is handling
  int64_t unfinished_ = 0;  // requests accepted and not yet fully written
  std::chrono::steady_clock::time_point last_request_;  // when OnRequest last ran
  bool stop_workers_ = false;
  std::atomic<bool> stopping_{false};
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_HTTP_SERVER_H_
