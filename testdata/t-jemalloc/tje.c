/* tje.c -- jemalloc heap-profile test program for rpprof (testdata/t-jemalloc).
 *
 * Three threads allocate from different functions:
 *   main thread   journal_append()  small records, a linked list that only grows
 *   "lexer"       lex_tokens() -> new_token()   many small tokens, 1 in 4 kept
 *   "cache"       cache_fill() -> grow_block()  blocks grown with realloc, a ring of 24
 * In three phases separated by barriers; after each phase the main thread
 * writes a profile with mallctl("prof.dump").  The workers stay alive until
 * the last dump, so every dump has per-thread (t0, t1, t2) lines.
 *
 *   MALLOC_CONF=prof:true,lg_prof_sample:12 ./tje DIR
 */
#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASES 3

static pthread_barrier_t start_phase, end_phase;

/* ---- main thread: journal ---- */
struct entry {
    struct entry *next;
    size_t len;
    char text[];
};
static struct entry *journal;

__attribute__((noinline)) static void journal_append(int phase, int i)
{
    char tmp[96];
    int n = snprintf(tmp, sizeof tmp, "phase %d entry %d: %*s", phase, i, (i % 40) + 8, "x");
    struct entry *e = malloc(sizeof *e + (size_t)n + 1);
    memcpy(e->text, tmp, (size_t)n + 1);
    e->len = (size_t)n;
    e->next = journal;
    journal = e;
}

/* ---- lexer thread ---- */
struct token {
    int kind;
    char *lexeme;
};
static struct token **kept_tokens;
static size_t n_kept, cap_kept;

__attribute__((noinline)) static struct token *new_token(int kind, const char *s, size_t n)
{
    struct token *t = malloc(sizeof *t);
    t->kind = kind;
    t->lexeme = malloc(n + 1);
    memcpy(t->lexeme, s, n);
    t->lexeme[n] = '\0';
    return t;
}

__attribute__((noinline)) static void lex_tokens(int phase)
{
    static const char src[] = "let answer = compute(alpha, beta) * 42 + gamma_delta;";
    for (int rep = 0; rep < 400 * (phase + 1); rep++) {
        size_t i = 0;
        while (src[i]) {
            size_t j = i + 1;
            while (src[j] && src[j] != ' ') j++;
            struct token *t = new_token((int)(j - i), src + i, j - i);
            if ((rep + i) % 4 == 0) {
                if (n_kept == cap_kept) {
                    cap_kept = cap_kept ? cap_kept * 2 : 256;
                    kept_tokens = realloc(kept_tokens, cap_kept * sizeof *kept_tokens);
                }
                kept_tokens[n_kept++] = t;
            } else {
                free(t->lexeme);
                free(t);
            }
            i = src[j] ? j + 1 : j;
        }
    }
}

static void *lexer_main(void *arg)
{
    (void)arg;
    for (int p = 0; p < PHASES; p++) {
        pthread_barrier_wait(&start_phase);
        lex_tokens(p);
        pthread_barrier_wait(&end_phase);
    }
    pthread_barrier_wait(&start_phase); /* stay alive until the last dump */
    return NULL;
}

/* ---- cache thread ---- */
#define RING 24
static char *ring[RING];
static size_t ring_pos;

__attribute__((noinline)) static char *grow_block(char *block, size_t *size, size_t want)
{
    while (*size < want) {
        *size = *size ? *size * 2 : 512;
        block = realloc(block, *size);
    }
    return block;
}

__attribute__((noinline)) static void cache_fill(int phase)
{
    for (int i = 0; i < 60 * (phase + 1); i++) {
        size_t size = 0;
        char *b = grow_block(NULL, &size, 4096 + (size_t)((i * 7919) % 60000));
        memset(b, i, size);
        free(ring[ring_pos]);
        ring[ring_pos] = b;
        ring_pos = (ring_pos + 1) % RING;
    }
}

static void *cache_main(void *arg)
{
    (void)arg;
    for (int p = 0; p < PHASES; p++) {
        pthread_barrier_wait(&start_phase);
        cache_fill(p);
        pthread_barrier_wait(&end_phase);
    }
    pthread_barrier_wait(&start_phase);
    return NULL;
}

static void dump(const char *dir, int n)
{
    static char name[4096];
    snprintf(name, sizeof name, "%s/tje.%04d.heap", dir, n);
    const char *p = name;
    int err = mallctl("prof.dump", NULL, NULL, &p, sizeof p);
    if (err) {
        fprintf(stderr, "prof.dump %s: error %d (is MALLOC_CONF=prof:true set?)\n", name, err);
        exit(1);
    }
    printf("dumped %s\n", name);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    pthread_t lexer, cache;
    pthread_barrier_init(&start_phase, NULL, 3);
    pthread_barrier_init(&end_phase, NULL, 3);
    pthread_create(&lexer, NULL, lexer_main, NULL);
    pthread_create(&cache, NULL, cache_main, NULL);
    for (int p = 0; p < PHASES; p++) {
        pthread_barrier_wait(&start_phase);
        for (int i = 0; i < 3000; i++) journal_append(p, i);
        pthread_barrier_wait(&end_phase);
        dump(dir, p + 1);
    }
    pthread_barrier_wait(&start_phase);
    pthread_join(lexer, NULL);
    pthread_join(cache, NULL);
    printf("kept tokens %zu\n", n_kept);
    return 0;
}
