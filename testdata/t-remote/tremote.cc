// tremote.cc -- a tiny server speaking gperftools' remote-server protocol (the /pprof/*
// pages pprof fetches), for rpprof's remote-profile tests (testdata/t-remote).
//
// Linked with tcmalloc and the CPU profiler. Listens on 127.0.0.1:<port> (0: any free
// port; the port is printed on the first line of stdout), one connection at a time:
//   /pprof/heap            MallocExtension::GetHeapSample (run with TCMALLOC_SAMPLE_PARAMETER)
//   /pprof/growth          MallocExtension::GetHeapGrowthStacks
//   /pprof/profile?seconds=N  ProfilerStart/ProfilerStop around N seconds of busy work
//   /pprof/symbol          GET: "num_symbols: 1"; POST "0x..+0x..": "0x<addr>\t<name>" lines
//   /pprof/cmdline         argv, one per line
// and, for the error tests, as prefixes of those pages: /status/500, /auth (401 with an HTML
// page), /garbage (200 with HTML), /slow (answers after 10 s), /dribble (begins an answer,
// then stalls), /stripped and /few (symbol
// pages without symbols and naming half the addresses), /nocmd (no /pprof/cmdline), /argv
// (/pprof/cmdline as /proc/self/cmdline has it: the arguments after NULs), /longsym (a
// symbol page of one 100,000-byte line), /moved and /found (the symbol page's POST
// redirected to /pprof/symbol with a 307 or a 302), /mangled (symbol lines of mangled
// names after a space, as Go's handler writes them), /nopost (a symbol page whose POST fails
// with a 500). It exits after a request to /quit, or
// after 10 minutes.
#include <arpa/inet.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <gperftools/malloc_extension.h>
#include <gperftools/profiler.h>

static std::vector<std::string> g_argv;
static std::vector<char*> g_kept;
static volatile unsigned long g_sink;

// Allocations that stay alive: the heap pages name these.
__attribute__((noinline)) void remote_alloc_big(int n) {
    for (int i = 0; i < n; i++) g_kept.push_back(new char[256 * 1024]);
}
__attribute__((noinline)) void remote_alloc_small(int n) {
    for (int i = 0; i < n; i++) g_kept.push_back(static_cast<char*>(malloc(4096 + i)));
}

// CPU work: the profile page names these.
__attribute__((noinline)) unsigned long remote_busy_spin(unsigned long n) {
    unsigned long x = n;
    for (unsigned long i = 0; i < 4000000; i++) x = x * 6364136223846793005ul + i;
    return x;
}
__attribute__((noinline)) unsigned long remote_busy_hash(unsigned long n) {
    unsigned long h = 1469598103934665603ul;
    for (unsigned long i = 0; i < 2000000; i++) h = (h ^ (n + i)) * 1099511628211ul;
    return h;
}

static void busy_for(double seconds) {
    timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    unsigned long n = 0;
    for (;;) {
        g_sink += remote_busy_spin(n++);
        g_sink += remote_busy_hash(n);
        clock_gettime(CLOCK_MONOTONIC, &now);
        double t = (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
        if (t >= seconds) break;
    }
}

static void send_all(int fd, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = write(fd, s.data() + off, s.size() - off);
        if (n <= 0) return;
        off += (size_t)n;
    }
}

static void reply(int fd, int code, const char* reason, const std::string& body,
                  const char* type = "text/plain") {
    char head[256];
    snprintf(head, sizeof head,
             "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
             code, reason, type, body.size());
    send_all(fd, head);
    send_all(fd, body);
}

// mangled: the names as the symbol table has them, after a space.
static std::string symbol_answer(const std::string& post, bool mangled = false) {
    std::string out;
    size_t i = 0;
    while (i < post.size()) {
        size_t j = post.find('+', i);
        if (j == std::string::npos) j = post.size();
        std::string a = post.substr(i, j - i);
        i = j + 1;
        unsigned long addr = strtoul(a.c_str(), nullptr, 16);
        Dl_info info;
        if (addr == 0 || !dladdr(reinterpret_cast<void*>(addr), &info) || !info.dli_sname) continue;
        int status = 0;
        char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
        char line[64];
        snprintf(line, sizeof line, mangled ? "0x%016lx " : "0x%016lx\t", addr);
        out += line;
        out += (status == 0 && d && !mangled) ? d : info.dli_sname;
        out += "\n";
        free(d);
    }
    return out;
}

static void handle(int fd) {
    std::string req;
    char buf[8192];
    size_t header_end = std::string::npos;
    while (header_end == std::string::npos) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return;
        req.append(buf, (size_t)n);
        header_end = req.find("\r\n\r\n");
        if (req.size() > (1 << 20)) return;
    }
    size_t length = 0;
    const char* cl = strcasestr(req.c_str(), "\r\ncontent-length:");
    if (cl && cl < req.c_str() + header_end) length = strtoul(cl + 17, nullptr, 10);
    while (req.size() < header_end + 4 + length) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, (size_t)n);
    }
    std::string body = req.substr(header_end + 4);
    size_t sp1 = req.find(' '), sp2 = req.find(' ', sp1 + 1);
    std::string method = req.substr(0, sp1), target = req.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string path = target.substr(0, target.find('?'));
    fprintf(stderr, "tremote: %s %s\n", method.c_str(), target.c_str());
    // The servers of the symbol tests: /stripped (a symbol page without symbols, and a
    // profile page that fails, so that a client asking it first is told by its error) and
    // /few (a symbol page that names only the first half of the addresses).
    bool few = false;
    if (path.rfind("/stripped/", 0) == 0) {
        path = path.substr(9);
        if (path == "/pprof/symbol") reply(fd, 200, "OK", "num_symbols: 0\n");
        else if (path == "/pprof/cmdline") reply(fd, 200, "OK", g_argv[0] + "\n");
        else reply(fd, 500, "Internal Server Error", "profile page asked\n");
        return;
    }
    if (path.rfind("/few/", 0) == 0) {
        path = path.substr(4);
        few = true;
    }
    // /argv: the program-name page of a server that sends its /proc/self/cmdline.
    if (path.rfind("/argv/", 0) == 0) {
        path = path.substr(5);
        if (path == "/pprof/cmdline") {
            std::string s;
            for (auto& a : g_argv) s += a + std::string(1, '\0');
            reply(fd, 200, "OK", s);
            return;
        }
    }
    // /longsym: a symbol page that is not one, in a line of 100,000 bytes.
    if (path.rfind("/longsym/", 0) == 0) {
        path = path.substr(8);
        if (path == "/pprof/symbol") {
            reply(fd, 200, "OK", std::string(100000, 'A') + "\n");
            return;
        }
    }
    // /moved, /found: the symbol page's POST sent on to /pprof/symbol.
    if (path.rfind("/moved/", 0) == 0 || path.rfind("/found/", 0) == 0) {
        bool found = path[1] == 'f';
        path = path.substr(6);
        if (path == "/pprof/symbol" && method == "POST") {
            std::string head = found ? "HTTP/1.0 302 Found\r\n" : "HTTP/1.0 307 Temporary Redirect\r\n";
            head += "Location: /pprof/symbol\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            send_all(fd, head);
            return;
        }
    }
    // /mangled: symbol lines of mangled names after a space.
    if (path.rfind("/mangled/", 0) == 0) {
        path = path.substr(8);
        if (path == "/pprof/symbol" && method == "POST") {
            reply(fd, 200, "OK", symbol_answer(body, true));
            return;
        }
    }
    // /nopost: a symbol page that answers the check but fails the addresses' POST.
    if (path.rfind("/nopost/", 0) == 0) {
        path = path.substr(7);
        if (path == "/pprof/symbol" && method == "POST") {
            reply(fd, 500, "Internal Server Error", "symbolizer crashed\n");
            return;
        }
    }
    // /nocmd: a server without the program-name page.
    if (path.rfind("/nocmd/", 0) == 0) {
        path = path.substr(6);
        if (path == "/pprof/cmdline") {
            reply(fd, 404, "Not Found", "no such page\n");
            return;
        }
    }
    if (few && path == "/pprof/symbol" && method == "POST") {
        size_t n = 0, half = 0;
        for (size_t i = 0; i < body.size(); i++) n += body[i] == '+';
        size_t cut = body.size();
        for (size_t i = 0; i < body.size(); i++) {
            if (body[i] == '+' && ++half == (n + 1) / 2) { cut = i; break; }
        }
        reply(fd, 200, "OK", symbol_answer(body.substr(0, cut)));
        return;
    }

    if (path == "/pprof/heap") {
        std::string s;
        MallocExtension::instance()->GetHeapSample(&s);
        reply(fd, 200, "OK", s);
    } else if (path == "/pprof/growth") {
        std::string s;
        MallocExtension::instance()->GetHeapGrowthStacks(&s);
        reply(fd, 200, "OK", s);
    } else if (path == "/pprof/profile") {
        double seconds = 1;
        size_t q = target.find("seconds=");
        if (q != std::string::npos) seconds = atof(target.c_str() + q + 8);
        if (seconds <= 0 || seconds > 60) seconds = 1;
        char file[] = "/tmp/tremote-cpu-XXXXXX";
        int tfd = mkstemp(file);
        if (tfd < 0) { reply(fd, 500, "Internal Server Error", "mkstemp failed\n"); return; }
        close(tfd);
        ProfilerStart(file);
        busy_for(seconds);
        ProfilerStop();
        FILE* f = fopen(file, "rb");
        std::string s;
        if (f) {
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
            fclose(f);
        }
        unlink(file);
        reply(fd, 200, "OK", s, "application/octet-stream");
    } else if (path == "/pprof/symbol") {
        if (method == "POST") reply(fd, 200, "OK", symbol_answer(body));
        else reply(fd, 200, "OK", "num_symbols: 1\n");
    } else if (path == "/pprof/cmdline") {
        std::string s;
        for (auto& a : g_argv) s += a + "\n";
        reply(fd, 200, "OK", s);
    } else if (path.rfind("/status/500", 0) == 0) {
        reply(fd, 500, "Internal Server Error", "something broke on the server\n");
    } else if (path.rfind("/auth/", 0) == 0) {
        reply(fd, 401, "Unauthorized", "<html><body>Login required</body></html>\n", "text/html");
    } else if (path.rfind("/garbage/", 0) == 0) {
        reply(fd, 200, "OK", "<html>hello</html>\n", "text/html");
    } else if (path.rfind("/slow/", 0) == 0) {
        sleep(10);
        reply(fd, 200, "OK", "late\n");
    } else if (path.rfind("/dribble/", 0) == 0) {
        // An answer that begins and stalls: its headers and the start of its body, then
        // nothing for 3 s.
        send_all(fd, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nheap profile: ");
        sleep(3);
    } else if (path == "/quit") {
        reply(fd, 200, "OK", "bye\n");
        exit(0);
    } else {
        reply(fd, 404, "Not Found", "no such page\n");
    }
}

int main(int argc, char** argv) {
    for (int i = 0; i < argc; i++) g_argv.push_back(argv[i]);
    signal(SIGPIPE, SIG_IGN);
    alarm(600);  // never outlive a test run
    int port = argc > 1 ? atoi(argv[1]) : 0;
    // In a thread of its own: the main thread's first allocations come before tcmalloc has
    // read TCMALLOC_SAMPLE_PARAMETER, so its sampler may start disabled.
    std::thread([] {
        remote_alloc_big(8);
        remote_alloc_small(64);
    }).join();
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)port);
    if (bind(s, (sockaddr*)&addr, sizeof addr) != 0 || listen(s, 16) != 0) {
        perror("tremote: bind/listen");
        return 1;
    }
    socklen_t len = sizeof addr;
    getsockname(s, (sockaddr*)&addr, &len);
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    for (;;) {
        int c = accept(s, nullptr, nullptr);
        if (c < 0) continue;
        handle(c);
        close(c);
    }
}
