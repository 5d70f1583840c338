// An event-driven HTTP/1.1 server on libevent's evhttp: event-loop threads do all socket and
// TLS I/O (accepting, reading whole requests, writing replies) and a pool of worker threads runs
// the handler. A slow or stalled client therefore holds a connection and its buffered bytes,
// never a worker, so probes and other clients keep being answered.
//
// There are several loops (options.num_io_threads), each with its own evhttp, all accepting on
// one listening socket: a connection is served by the loop that accepted it, which is the first
// to get a CPU when it arrives. One loop alone gets one thread's fair share of a CPU that
// request threads saturate under overload, and then delays every REST request by up to a
// second (in tests/soak it was runnable 82% of the time and running 11%).
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
// Thread safety: Start and Stop from one thread; the handler runs concurrently on the workers,
// and run_inline, error_response and the queue_groups callbacks concurrently on the loops: all
// must be thread-safe. Stop (also run by the destructor) returns once every worker is idle.
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
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "protos/serving/ssl_config.pb.h"

struct event;
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
  // Set by HttpServerOptions::QueueGroups::admit on the event loop (e.g. a place in an
  // admission line) and handed to the handler; released once the handler returns.
  std::shared_ptr<void> hold;
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
  // Event-loop threads doing the socket and TLS I/O; 0: one per CPU this process may run on,
  // at least kMinIoThreads (under overload each loop gets one thread's share of a CPU that
  // request threads saturate: tests/soak's REST requests waited 550 ms to be read with one
  // loop, 115-180 ms with two, 28 ms with four) and at most kMaxIoThreads.
  int num_io_threads = 0;
  static constexpr int kMinIoThreads = 4;
  static constexpr int kMaxIoThreads = 16;
  // A connection that sends or accepts nothing for this long is closed; also how long Stop
  // waits for handlers still running.
  int timeout_ms = 30000;
  int64_t max_body_bytes = int64_t{64} << 20;
  int64_t max_header_bytes = 64 << 10;
  // Requests waiting for a worker (or parked by queue_groups.admit); more are answered 503 at
  // once. 0: 16 × num_threads.
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

  // Per-group admission of the requests bound for the workers (e.g. one group per model).
  // `group` returns a request's group, "" for none; the caller keeps the set of groups bounded.
  // `admit(request, body_bytes, group, ready)` runs on the event loop when a request of a group
  // arrives, with the body unread (it must be cheap): a response refuses the request at once
  // (e.g. 429 for a model at capacity); nullopt accepts it, and it waits, holding no worker,
  // until `ready` is called (once, from any thread, possibly before admit returns), then
  // queues for a worker with whatever admit put in request->hold. `ready` must not be called
  // for a refused request, nor once the hold is destroyed.
  struct QueueGroups {
    std::function<std::string(const std::string& method, const std::string& path)> group;
    std::function<std::optional<HttpResponse>(HttpRequest* request, int64_t body_bytes,
                                              const std::string& group,
                                              std::function<void()> ready)>
        admit;
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
  // waits up to timeout_ms for the handlers (and for requests parked by queue_groups.admit to
  // be ready and run; any still parked then are closed unanswered), then up to two seconds
  // for the replies to be written and for the requests still arriving to stop (500 ms without
  // one), then closes every connection. Idempotent.
  void Stop();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_; }
  // The event loops serving connections; 0 before Start.
  int num_io_threads() const { return static_cast<int>(loops_.size()); }

  // Gzip of `data` at level 1; exposed for tests.
  static std::string Gzip(const std::string& data);

 private:
  struct Job;
  struct Loop;
  // Sets up loops_[0..count), the first bound to the address and the others accepting on it.
  absl::Status StartLoops(int count);
  static void OnRequest(evhttp_request* request, void* loop);
  // Queues the parked job `id` for a worker (its group's admit said it is ready).
  void Resume(uint64_t id);
  // Writes the replies the workers have finished for `loop` (on its thread).
  static void OnRepliesReady(int fd, short events, void* loop);
  static void OnReplySent(evhttp_request* request, void* self);
  void Reply(evhttp_request* request, HttpResponse response, bool gzip, bool close);
  void WorkerLoop();
  void Finished();

  const HttpServerOptions options_;
  const Handler handler_;
  ssl_ctx_st* ssl_ctx_ = nullptr;
  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<std::thread> workers_;
  int port_ = 0;

  std::mutex mu_;
  std::condition_variable work_;  // signals queue_ pushes and stop_workers_, to the workers
  std::condition_variable cv_;    // signals running_ and unfinished_ changes, to Stop
  std::deque<std::unique_ptr<Job>> queue_;
  // Accepted jobs waiting for their group's `ready`, by id. A job is never destroyed with mu_
  // held: its hold's destructor may call back into Resume (through admission control).
  std::map<uint64_t, std::unique_ptr<Job>> parked_;
  std::set<uint64_t> ready_early_;  // ids whose `ready` came before they were parked
  uint64_t next_job_id_ = 0;
  int running_ = 0;         // jobs a worker is handling
  int64_t unfinished_ = 0;  // requests accepted and not yet fully written
  std::chrono::steady_clock::time_point last_request_;  // when OnRequest last ran
  bool stop_workers_ = false;
  std::atomic<bool> stopping_{false};
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_HTTP_SERVER_H_
