#include "server/rest/http_server.h"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace tensord {

struct HttpServer::Loop {
  HttpServer* server = nullptr;
  event_base* base = nullptr;
  evhttp* http = nullptr;
  evhttp_bound_socket* socket = nullptr;
  event* replies_ready = nullptr;  // activated by a worker that finds `replies` empty
  std::thread thread;
  std::mutex mu;
  std::vector<std::unique_ptr<Job>> replies;  // guarded by mu; finished, to be written
};

namespace {
struct EvbufferFree {
  void operator()(evbuffer* buffer) const { evbuffer_free(buffer); }
};
}  // namespace

struct HttpServer::Job {
  Loop* loop = nullptr;               // the loop that read the request and writes its reply
  evhttp_request* request = nullptr;  // owned by evhttp; touched only on the loop's thread
  // The request body's chains, moved off the loop; a worker copies them into input.body.
  std::unique_ptr<evbuffer, EvbufferFree> body;
  HttpRequest input;
  bool accepts_gzip = false;
  HttpResponse response;
};

namespace {

const char* MethodName(evhttp_cmd_type command) {
  switch (command) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    case EVHTTP_REQ_TRACE: return "TRACE";
    case EVHTTP_REQ_CONNECT: return "CONNECT";
    case EVHTTP_REQ_PATCH: return "PATCH";
  }
  return "UNKNOWN";
}

// evhttp knows the reason phrases of RFC 2616 only.
const char* ReasonPhrase(int status) {
  switch (status) {
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    default: return nullptr;  // evhttp's own
  }
}

// True when an Accept-Encoding header lists gzip without q=0.
bool AcceptsGzip(const char* header) {
  if (header == nullptr) return false;
  for (absl::string_view coding : absl::StrSplit(header, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(coding, ';');
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(parts[0]), "gzip")) continue;
    for (size_t i = 1; i < parts.size(); ++i) {
      absl::string_view param = absl::StripAsciiWhitespace(parts[i]);
      double q = 1;
      if (absl::ConsumePrefix(&param, "q=") && absl::SimpleAtod(param, &q) && q <= 0) {
        return false;
      }
    }
    return true;
  }
  return false;
}

std::string PercentDecodedPath(evhttp_request* request) {
  const evhttp_uri* uri = evhttp_request_get_evhttp_uri(request);
  const char* path = uri != nullptr ? evhttp_uri_get_path(uri) : nullptr;
  if (path == nullptr || *path == '\0') return "/";
  size_t length = 0;
  char* decoded = evhttp_uridecode(path, 0, &length);
  if (decoded == nullptr) return path;
  std::string out(decoded, length);
  std::free(decoded);
  return out;
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
std::unique_ptr<BIO, BioDeleter> PemBio(const std::string& pem) {
  return std::unique_ptr<BIO, BioDeleter>(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// A TLS server context for `ssl`, or INVALID_ARGUMENT naming the field at fault.
absl::StatusOr<SSL_CTX*> MakeSslContext(const ::tensorflow::serving::SSLConfig& ssl) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()),
                                                          &SSL_CTX_free);
  if (ctx == nullptr) return absl::InternalError("REST TLS: could not create an SSL context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  auto cert_bio = PemBio(ssl.server_cert());
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  if (cert == nullptr) {
    return absl::InvalidArgumentError("REST TLS: server_cert is not a PEM certificate");
  }
  const int used = SSL_CTX_use_certificate(ctx.get(), cert);
  X509_free(cert);
  // Certificates after the first are the chain up to the CA.
  while (X509* chain = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add_extra_chain_cert(ctx.get(), chain) != 1) X509_free(chain);
  }
  ERR_clear_error();  // the loop ends on "no start line"
  auto key_bio = PemBio(ssl.server_key());
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr) {
    return absl::InvalidArgumentError("REST TLS: server_key is not a PEM private key");
  }
  const int key_used = SSL_CTX_use_PrivateKey(ctx.get(), key);
  EVP_PKEY_free(key);
  if (used != 1 || key_used != 1 || SSL_CTX_check_private_key(ctx.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "REST TLS: server_key does not match server_cert, or they are unusable");
  }
  if (ssl.client_verify()) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    auto ca_bio = PemBio(ssl.custom_ca());
    int added = 0;
    while (X509* ca = PEM_read_bio_X509(ca_bio.get(), nullptr, nullptr, nullptr)) {
      added += X509_STORE_add_cert(store, ca);
      X509_free(ca);
    }
    ERR_clear_error();
    if (added == 0) {
      return absl::InvalidArgumentError(
          "REST TLS: client_verify needs custom_ca with at least one PEM certificate");
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return ctx.release();
}

// evhttp's per-connection bufferevent factory for HTTPS.
bufferevent* NewTlsBufferevent(event_base* base, void* ctx) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ctx));
  bufferevent* bev =
      ssl == nullptr ? nullptr
                     : bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
                                                      BEV_OPT_CLOSE_ON_FREE);
  if (bev != nullptr) {
    // A client that closes without a TLS close_notify is not an error worth logging.
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    return bev;
  }
  // Out of memory. evhttp would make a plaintext bufferevent for a null one, so hand it one
  // end of a pair instead: the connection never receives anything and times out.
  bufferevent* pair[2] = {nullptr, nullptr};
  bufferevent_pair_new(base, BEV_OPT_CLOSE_ON_FREE, pair);
  if (pair[1] != nullptr) bufferevent_free(pair[1]);
  return pair[0];
}

// libevent 2.1 reads at most 4 KB from a socket per event-loop pass (2.2 raises the cap), so a
// 3 MB request body takes some 800 passes. This callback on a plaintext connection's input
// buffer runs after each of those reads and takes what else the socket already holds, up to
// kMaxReadAhead per pass: one pass per burst that arrives. It only moves bytes earlier into the
// buffer evhttp reads from, so evhttp still parses them, enforces its size limits after every
// pass, and sees end of file and errors on its own next read.
constexpr size_t kMaxReadAhead = size_t{1} << 20;

void ReadAhead(evbuffer* input, const evbuffer_cb_info* change, void* connection) {
  thread_local bool reading = false;  // our own commits call back here
  if (change->n_added == 0 || reading) return;
  const evutil_socket_t fd = bufferevent_getfd(static_cast<bufferevent*>(connection));
  if (fd < 0) return;
  reading = true;
  for (size_t budget = kMaxReadAhead; budget > 0;) {
    int available = 0;
    if (ioctl(fd, FIONREAD, &available) != 0 || available <= 0) break;
    evbuffer_iovec space;
    const size_t want = std::min(static_cast<size_t>(available), budget);
    if (evbuffer_reserve_space(input, static_cast<ev_ssize_t>(want), &space, 1) != 1) break;
    const ssize_t got = read(fd, space.iov_base, want);
    if (got <= 0) break;
    space.iov_len = static_cast<size_t>(got);
    if (evbuffer_commit_space(input, &space, 1) != 0) break;
    budget -= static_cast<size_t>(got);
  }
  reading = false;
}

// evhttp's per-connection bufferevent factory for plain HTTP; evhttp sets the socket.
bufferevent* NewPlainBufferevent(event_base* base, void*) {
  bufferevent* bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
  if (bev != nullptr && evbuffer_add_cb(bufferevent_get_input(bev), &ReadAhead, bev) == nullptr) {
    bufferevent_free(bev);
    return nullptr;  // evhttp then makes its own, without read-ahead
  }
  return bev;
}

// Appends `buffer`'s bytes to `out`, chain by chain, leaving spare capacity: a JSON parser that
// reads past the end (simdjson: 64 bytes) then parses the body in place instead of copying it.
void AppendBody(evbuffer* buffer, std::string* out) {
  out->reserve(out->size() + evbuffer_get_length(buffer) + 64);
  const int chains = evbuffer_peek(buffer, -1, nullptr, nullptr, 0);
  std::vector<evbuffer_iovec> parts(chains > 0 ? chains : 0);
  evbuffer_peek(buffer, -1, nullptr, parts.data(), static_cast<int>(parts.size()));
  for (const evbuffer_iovec& part : parts) {
    out->append(static_cast<const char*>(part.iov_base), part.iov_len);
  }
}

// The chains of a request's body, moved without a copy into a buffer of their own (a worker
// copies them out, off the loop); null when out of memory.
std::unique_ptr<evbuffer, EvbufferFree> TakeBody(evbuffer* in) {
  std::unique_ptr<evbuffer, EvbufferFree> body(evbuffer_new());
  if (body != nullptr && evbuffer_add_buffer(body.get(), in) != 0) body.reset();
  return body;
}

int CpusAvailable() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void InitLibeventOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Workers schedule replies onto the loop's base from their own threads.
    evthread_use_pthreads();
    // A client that disconnects mid-reply must not kill the process.
    signal(SIGPIPE, SIG_IGN);
  });
}

}  // namespace

std::string HttpServer::Gzip(const std::string& data) {
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return result == Z_STREAM_END ? out : std::string();
}

HttpServer::HttpServer(HttpServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() { Stop(); }

absl::Status HttpServer::Start() {
  if (!loops_.empty()) return absl::FailedPreconditionError("HTTP server already started");
  InitLibeventOnce();
  if (options_.ssl.has_value()) {
    absl::StatusOr<SSL_CTX*> ctx = MakeSslContext(*options_.ssl);
    if (!ctx.ok()) return ctx.status();
    ssl_ctx_ = *ctx;
  }
  const int io_threads =
      options_.num_io_threads > 0
          ? std::min(options_.num_io_threads, HttpServerOptions::kMaxIoThreads)
          : std::clamp(CpusAvailable(), HttpServerOptions::kMinIoThreads,
                       HttpServerOptions::kMaxIoThreads);
  if (absl::Status started = StartLoops(io_threads); !started.ok()) {
    Stop();
    return started;
  }
  int threads = options_.num_threads;
  if (threads <= 0) threads = 4 * std::max(1u, std::thread::hardware_concurrency());
  for (int i = 0; i < threads; ++i) {
    workers_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "rest-worker");
      WorkerLoop();
    });
  }
  for (size_t i = 0; i < loops_.size(); ++i) {
    Loop* loop = loops_[i].get();
    loop->thread = std::thread([loop, i] {
      pthread_setname_np(pthread_self(), absl::StrCat("rest-io-", i).c_str());
      event_base_loop(loop->base, EVLOOP_NO_EXIT_ON_EMPTY);
    });
  }
  return absl::OkStatus();
}

absl::Status HttpServer::StartLoops(int count) {
  evutil_socket_t listener = -1;
  for (int i = 0; i < count; ++i) {
    auto loop = std::make_unique<Loop>();
    loop->server = this;
    loop->base = event_base_new();
    loops_.push_back(std::move(loop));
    Loop* l = loops_.back().get();
    l->http = l->base != nullptr ? evhttp_new(l->base) : nullptr;
    l->replies_ready = l->base != nullptr ? event_new(l->base, -1, 0, &OnRepliesReady, l)
                                          : nullptr;
    if (l->http == nullptr || l->replies_ready == nullptr) {
      return absl::InternalError("Could not create the HTTP event loop");
    }
    evhttp_set_max_body_size(l->http, options_.max_body_bytes);
    evhttp_set_max_headers_size(l->http, options_.max_header_bytes);
    const timeval timeout{options_.timeout_ms / 1000, (options_.timeout_ms % 1000) * 1000};
    evhttp_set_timeout_tv(l->http, &timeout);
    evhttp_set_allowed_methods(l->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_PATCH);
    evhttp_set_gencb(l->http, &HttpServer::OnRequest, l);
    if (ssl_ctx_ != nullptr) {
      evhttp_set_bevcb(l->http, &NewTlsBufferevent, ssl_ctx_);
    } else {
      evhttp_set_bevcb(l->http, &NewPlainBufferevent, nullptr);
    }
    if (i == 0) {
      // libevent binds with SO_REUSEADDR only, so a second server cannot share the port.
      l->socket = evhttp_bind_socket_with_handle(l->http, options_.host.c_str(),
                                                 static_cast<uint16_t>(options_.port));
      if (l->socket == nullptr) {
        return absl::UnavailableError(absl::StrCat("Could not bind the REST API to ",
                                                   options_.host, ":", options_.port));
      }
      listener = evhttp_bound_socket_get_fd(l->socket);
    } else {
      // Each loop's listener closes its descriptor when freed: each gets a descriptor of its
      // own for the one socket.
      const evutil_socket_t copy = dup(listener);
      l->socket = copy >= 0 ? evhttp_accept_socket_with_handle(l->http, copy) : nullptr;
      if (l->socket == nullptr) {
        if (copy >= 0) close(copy);
        return absl::InternalError("Could not share the REST listening socket between loops");
      }
    }
  }
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.ss_family == AF_INET6
                    ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  return absl::OkStatus();
}

void HttpServer::OnRequest(evhttp_request* request, void* loop_arg) {
  Loop* loop = static_cast<Loop*>(loop_arg);
  HttpServer* server = loop->server;
  {
    std::lock_guard<std::mutex> lock(server->mu_);
    ++server->unfinished_;
    server->last_request_ = std::chrono::steady_clock::now();
  }
  auto job = std::make_unique<Job>();
  job->loop = loop;
  job->request = request;
  job->input.method = MethodName(evhttp_request_get_command(request));
  job->input.path = PercentDecodedPath(request);
  evbuffer* in = evhttp_request_get_input_buffer(request);
  const int64_t body_bytes = static_cast<int64_t>(evbuffer_get_length(in));
  job->accepts_gzip = AcceptsGzip(
      evhttp_find_header(evhttp_request_get_input_headers(request), "Accept-Encoding"));

  const auto refuse = [&](const std::string& message) {
    HttpResponse response = server->options_.error_response
                                ? server->options_.error_response(message)
                                : HttpResponse{503, message, "text/plain"};
    response.http_status = 503;
    server->Reply(request, std::move(response), false, /*close=*/true);
  };
  if (server->stopping_) return refuse("The server is shutting down");
  if (server->options_.run_inline &&
      server->options_.run_inline(job->input.method, job->input.path)) {
    AppendBody(in, &job->input.body);
    // Inline replies are small: never compressed.
    server->Reply(request, server->handler_(job->input), /*gzip=*/false, /*close=*/false);
    return;
  }
  const size_t max_queued = server->options_.max_queued_requests > 0
                                ? server->options_.max_queued_requests
                                : 16 * server->workers_.size();
  const auto& groups = server->options_.queue_groups;
  const std::string group =
      groups.has_value() ? groups->group(job->input.method, job->input.path) : std::string();
  const bool admits = !group.empty() && groups->admit;
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(server->mu_);
    if (server->queue_.size() + server->parked_.size() < max_queued) id = ++server->next_job_id_;
  }
  if (id == 0) {
    return refuse(
        absl::StrCat("Too many REST requests are waiting (", max_queued, "); retry later"));
  }
  job->body = TakeBody(in);
  if (job->body == nullptr) return refuse("Out of memory for the request body");
  if (admits) {
    std::optional<HttpResponse> refused = groups->admit(
        &job->input, body_bytes, group, [server, id] { server->Resume(id); });
    if (refused.has_value()) {
      server->Reply(request, *std::move(refused), /*gzip=*/false, /*close=*/false);
      return;
    }
  }
  std::lock_guard<std::mutex> lock(server->mu_);
  if (!admits || server->ready_early_.erase(id) > 0) {
    server->queue_.push_back(std::move(job));
    server->work_.notify_one();
  } else {
    server->parked_.emplace(id, std::move(job));
  }
}

void HttpServer::WorkerLoop() {
  for (;;) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_.wait(lock, [this] { return !queue_.empty() || stop_workers_; });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    if (job->body != nullptr) {
      AppendBody(job->body.get(), &job->input.body);
      job->body.reset();
    }
    job->response = handler_(job->input);
    job->input.hold.reset();
    // Compressed here, off the event loop.
    const int64_t size = static_cast<int64_t>(job->response.body.size());
    if (job->accepts_gzip && options_.gzip_min_bytes > 0 && size >= options_.gzip_min_bytes &&
        size <= HttpServerOptions::kMaxGzipBytes) {
      std::string compressed = Gzip(job->response.body);
      if (!compressed.empty() && compressed.size() < job->response.body.size()) {
        job->response.body = std::move(compressed);
      } else {
        job->accepts_gzip = false;
      }
    } else {
      job->accepts_gzip = false;
    }
    // evhttp is not thread-safe: the reply is written by the request's loop. One wakeup
    // writes every reply finished meanwhile.
    Loop* loop = job->loop;
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(loop->mu);
      wake = loop->replies.empty();
      loop->replies.push_back(std::move(job));
    }
    if (wake) event_active(loop->replies_ready, EV_TIMEOUT, 0);
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    cv_.notify_all();
  }
}

void HttpServer::Resume(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parked_.find(id);
  if (it == parked_.end()) {
    ready_early_.insert(id);
    return;
  }
  queue_.push_back(std::move(it->second));
  parked_.erase(it);
  work_.notify_one();
}

void HttpServer::OnRepliesReady(int, short, void* loop_arg) {
  Loop* loop = static_cast<Loop*>(loop_arg);
  std::vector<std::unique_ptr<Job>> replies;
  {
    std::lock_guard<std::mutex> lock(loop->mu);
    replies.swap(loop->replies);
  }
  HttpServer* server = loop->server;
  for (std::unique_ptr<Job>& job : replies) {
    // Already compressed by the worker when accepts_gzip is still set.
    server->Reply(job->request, std::move(job->response), job->accepts_gzip,
                  server->stopping_);
  }
}

void HttpServer::Reply(evhttp_request* request, HttpResponse response, bool gzip, bool close) {
  if (evhttp_request_get_connection(request) == nullptr) {
    // The client went away while the handler ran; evhttp_send_reply frees the request.
    evhttp_send_reply(request, response.http_status, nullptr, nullptr);
    Finished();
    return;
  }
  evkeyvalq* headers = evhttp_request_get_output_headers(request);
  evhttp_add_header(headers, "Content-Type", response.content_type.c_str());
  if (gzip) {
    evhttp_add_header(headers, "Content-Encoding", "gzip");
    evhttp_add_header(headers, "Vary", "Accept-Encoding");
  }
  if (close) evhttp_add_header(headers, "Connection", "close");
  // The body is handed over without a copy and freed once written.
  auto* body = new std::string(std::move(response.body));
  evbuffer* buffer = evbuffer_new();
  evbuffer_add_reference(
      buffer, body->data(), body->size(),
      [](const void*, size_t, void* owned) { delete static_cast<std::string*>(owned); }, body);
  evhttp_request_set_on_complete_cb(request, &HttpServer::OnReplySent, this);
  evhttp_send_reply(request, response.http_status, ReasonPhrase(response.http_status), buffer);
  evbuffer_free(buffer);
}

void HttpServer::OnReplySent(evhttp_request*, void* self) {
  static_cast<HttpServer*>(self)->Finished();
}

void HttpServer::Finished() {
  std::lock_guard<std::mutex> lock(mu_);
  --unfinished_;
  cv_.notify_all();
}

void HttpServer::Stop() {
  const bool serving = !loops_.empty() && loops_.front()->thread.joinable();
  if (serving) {
    stopping_ = true;
    // Listening ends on each loop's thread, which owns its evhttp objects.
    const timeval now{0, 0};
    for (const std::unique_ptr<Loop>& loop : loops_) {
      event_base_once(
          loop->base, -1, EV_TIMEOUT,
          [](int, short, void* arg) {
            auto* l = static_cast<Loop*>(arg);
            evhttp_del_accept_socket(l->http, l->socket);
          },
          loop.get(), &now);
    }
    // Requests already read are answered: the handlers get timeout_ms.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(options_.timeout_ms),
                 [this] { return queue_.empty() && parked_.empty() && running_ == 0; });
    // Then the replies are written, and requests whose bytes were still on their way when Stop
    // began are read and refused rather than cut off: the connections close once no request
    // has arrived for kQuietPeriod. At most two seconds, so that a client that stopped reading
    // or trickles its request does not hold the exit.
    constexpr auto kQuietPeriod = std::chrono::milliseconds(500);
    last_request_ = std::max(last_request_, std::chrono::steady_clock::now() - kQuietPeriod / 2);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (auto now = std::chrono::steady_clock::now(); now < give_up;
         now = std::chrono::steady_clock::now()) {
      if (unfinished_ == 0 && now - last_request_ >= kQuietPeriod) break;
      cv_.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_workers_ = true;
  }
  work_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  // Jobs left only when the handlers overran timeout_ms: closed unanswered below. Destroyed
  // outside mu_ (see parked_).
  std::deque<std::unique_ptr<Job>> unrun;
  std::map<uint64_t, std::unique_ptr<Job>> unready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unrun.swap(queue_);
    unready.swap(parked_);
  }
  unrun.clear();
  unready.clear();
  {
    // Destroying the parked jobs' holds may have granted, and so readied, others meanwhile.
    std::lock_guard<std::mutex> lock(mu_);
    ready_early_.clear();
  }
  for (const std::unique_ptr<Loop>& loop : loops_) {
    if (loop->thread.joinable()) {
      event_base_loopexit(loop->base, nullptr);
      loop->thread.join();
    }
    loop->replies.clear();  // replies not written by now: their connections close below
    if (loop->replies_ready != nullptr) event_free(loop->replies_ready);
    if (loop->http != nullptr) evhttp_free(loop->http);  // closes every connection
    if (loop->base != nullptr) event_base_free(loop->base);
  }
  loops_.clear();
  if (ssl_ctx_ != nullptr) SSL_CTX_free(ssl_ctx_);
  ssl_ctx_ = nullptr;
  port_ = 0;
  stopping_ = false;
  stop_workers_ = false;
  unfinished_ = 0;
}

}  // namespace tensord
