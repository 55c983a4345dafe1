/* The C API of libvss end to end, as a V2X stack would call it: open the entity from a
 * configuration file, sign, verify (the payload back, a tampered copy refused), verify a
 * batch, follow an identifier change through its callback, the error paths, signing from
 * four threads at once, close. Run by crates/vss-ffi/tests/c_program.rs, once plainly and
 * once under valgrind.
 *
 * Usage: test_vss CONFIG.toml   (exit 0 when every check passed) */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vss.h"

#define PSID_CAM 36
#define THREADS 4
#define SIGNS_PER_THREAD 25
#define BATCH 7
#define EVENTS_MAGIC 0x56535321u

static int checks;
static int failures;

/* Counts a check and prints it; a failure names the condition and the last error. */
static void check(const char *name, int ok, const char *condition) {
    checks++;
    if (ok) {
        printf("ok %s\n", name);
    } else {
        failures++;
        printf("FAIL %s: %s (last error: %s)\n", name, condition, vss_last_error());
    }
}

#define CHECK(name, condition) check((name), (condition) ? 1 : 0, #condition)

/* What the id-change callback has seen. */
struct events {
    unsigned magic;
    pthread_mutex_t lock;
    int count;
    int prepares;
    int commits;
    int aborts;
    vss_id_change_event prepare;
    vss_id_change_event commit;
};

static void on_id_change(const vss_id_change_event *event, void *user_data) {
    struct events *events = user_data;
    if (events->magic != EVENTS_MAGIC) {
        return;
    }
    pthread_mutex_lock(&events->lock);
    events->count++;
    switch (event->phase) {
    case VSS_ID_CHANGE_PHASE_PREPARE:
        events->prepares++;
        events->prepare = *event;
        break;
    case VSS_ID_CHANGE_PHASE_COMMIT:
        events->commits++;
        events->commit = *event;
        break;
    case VSS_ID_CHANGE_PHASE_ABORT:
        events->aborts++;
        break;
    }
    pthread_mutex_unlock(&events->lock);
}

static int events_count(struct events *events) {
    pthread_mutex_lock(&events->lock);
    int count = events->count;
    pthread_mutex_unlock(&events->lock);
    return count;
}

static int same_id(const vss_hashed_id8 *a, const vss_hashed_id8 *b) {
    return memcmp(a->bytes, b->bytes, sizeof a->bytes) == 0;
}

/* Signs `text` for the CAM PSID; {NULL, 0} on failure. */
static vss_buffer sign_text(const vss_entity *entity, const char *text) {
    vss_buffer out = {NULL, 0};
    if (vss_sign(entity, PSID_CAM, (const uint8_t *)text, strlen(text), &out) != VSS_OK) {
        printf("sign '%s': %s\n", text, vss_last_error());
    }
    return out;
}

/* A copy of `signed_message` with its last byte (in the signature's s) flipped. */
static uint8_t *tampered(const vss_buffer *signed_message) {
    uint8_t *copy = malloc(signed_message->len);
    if (copy == NULL) {
        abort();
    }
    memcpy(copy, signed_message->data, signed_message->len);
    copy[signed_message->len - 1] ^= 0x01;
    return copy;
}

static void opening_fails_clearly(const char *config) {
    vss_entity *entity = (vss_entity *)&entity;
    CHECK("open NULL path", vss_entity_open(NULL, &entity) == VSS_ERR_NULL);
    CHECK("open NULL path: entity NULL", entity == NULL);
    CHECK("open NULL path: last error", strlen(vss_last_error()) > 0);
    CHECK("open NULL out", vss_entity_open(config, NULL) == VSS_ERR_NULL);
    CHECK("open bad path",
          vss_entity_open("/nonexistent/vss.toml", &entity) == VSS_ERR_CONFIG);
    CHECK("open bad path: entity NULL", entity == NULL);
    CHECK("open bad path: last error names it",
          strstr(vss_last_error(), "/nonexistent/vss.toml") != NULL);
}

static void signs_and_verifies(const vss_entity *entity) {
    const char *text = "hello, V2X";
    vss_buffer message = sign_text(entity, text);
    CHECK("sign", message.data != NULL && message.len > strlen(text));
    CHECK("sign: last error empty", strcmp(vss_last_error(), "") == 0);

    vss_verdict verdict = VSS_VERDICT_UNSPECIFIED;
    vss_buffer payload = {NULL, 0};
    CHECK("verify", vss_verify(entity, message.data, message.len, &verdict, &payload) == VSS_OK);
    CHECK("verify: SUCCESS", verdict == VSS_VERDICT_SUCCESS);
    CHECK("verify: the payload back",
          payload.len == strlen(text) && memcmp(payload.data, text, payload.len) == 0);
    vss_buffer_free(&payload);
    CHECK("buffer free: emptied", payload.data == NULL && payload.len == 0);
    vss_buffer_free(&payload);
    vss_buffer_free(NULL);

    uint8_t *bad = tampered(&message);
    payload = (vss_buffer){NULL, 0};
    CHECK("verify tampered", vss_verify(entity, bad, message.len, &verdict, &payload) == VSS_OK);
    CHECK("verify tampered: FALSE_SIGNATURE", verdict == VSS_VERDICT_FALSE_SIGNATURE);
    CHECK("verify tampered: no payload", payload.data == NULL && payload.len == 0);
    free(bad);

    CHECK("verify again", vss_verify(entity, message.data, message.len, &verdict, NULL) == VSS_OK);
    CHECK("verify again: DUPLICATE_MESSAGE", verdict == VSS_VERDICT_DUPLICATE_MESSAGE);

    const uint8_t garbage[] = {0x03, 0x81, 0x00, 0x40};
    CHECK("verify garbage", vss_verify(entity, garbage, sizeof garbage, &verdict, NULL) == VSS_OK);
    CHECK("verify garbage: MALFORMED", verdict == VSS_VERDICT_MALFORMED);

    CHECK("verify NULL verdict",
          vss_verify(entity, message.data, message.len, NULL, NULL) == VSS_ERR_NULL);
    CHECK("verify NULL entity",
          vss_verify(NULL, message.data, message.len, &verdict, NULL) == VSS_ERR_NULL);
    CHECK("verify NULL entity: UNSPECIFIED", verdict == VSS_VERDICT_UNSPECIFIED);
    vss_buffer_free(&message);
}

static void verifies_a_batch(const vss_entity *entity) {
    vss_buffer signed_messages[BATCH - 1];
    vss_slice messages[BATCH];
    char text[32];
    for (int i = 0; i < BATCH - 1; i++) {
        snprintf(text, sizeof text, "batch %d", i);
        signed_messages[i] = sign_text(entity, text);
        messages[i] = (vss_slice){signed_messages[i].data, signed_messages[i].len};
    }
    uint8_t *bad = tampered(&signed_messages[2]);
    messages[2].data = bad;
    const uint8_t garbage[] = {0xff, 0xff};
    messages[BATCH - 1] = (vss_slice){garbage, sizeof garbage};

    vss_verdict verdicts[BATCH];
    CHECK("verify batch", vss_verify_batch(entity, messages, BATCH, verdicts) == VSS_OK);
    int expected = 1;
    for (int i = 0; i < BATCH; i++) {
        vss_verdict want = i == 2           ? VSS_VERDICT_FALSE_SIGNATURE
                           : i == BATCH - 1 ? VSS_VERDICT_MALFORMED
                                            : VSS_VERDICT_SUCCESS;
        if (verdicts[i] != want) {
            printf("batch message %d: verdict %d, expected %d\n", i, (int)verdicts[i], (int)want);
            expected = 0;
        }
    }
    CHECK("verify batch: SUCCESS, FALSE_SIGNATURE at 2, MALFORMED last", expected);
    CHECK("verify empty batch", vss_verify_batch(entity, NULL, 0, NULL) == VSS_OK);
    CHECK("verify batch over VSS_MAX_BATCH",
          vss_verify_batch(entity, messages, VSS_MAX_BATCH + 1, verdicts) ==
              VSS_ERR_INVALID_ARGUMENT);
    CHECK("verify batch NULL messages",
          vss_verify_batch(entity, NULL, BATCH, verdicts) == VSS_ERR_NULL);
    free(bad);
    for (int i = 0; i < BATCH - 1; i++) {
        vss_buffer_free(&signed_messages[i]);
    }
}

static void signing_fails_clearly(const vss_entity *entity) {
    vss_buffer out = {NULL, 0};
    const uint8_t payload[] = {1, 2, 3};
    CHECK("sign NULL entity", vss_sign(NULL, PSID_CAM, payload, 3, &out) == VSS_ERR_NULL);
    CHECK("sign NULL entity: last error", strlen(vss_last_error()) > 0);
    CHECK("sign NULL payload", vss_sign(entity, PSID_CAM, NULL, 3, &out) == VSS_ERR_NULL);
    CHECK("sign NULL out", vss_sign(entity, PSID_CAM, payload, 3, NULL) == VSS_ERR_NULL);
    uint8_t *big = calloc(VSS_MAX_MESSAGE_LEN + 1, 1);
    if (big == NULL) {
        abort();
    }
    CHECK("sign over VSS_MAX_MESSAGE_LEN",
          vss_sign(entity, PSID_CAM, big, VSS_MAX_MESSAGE_LEN + 1, &out) ==
              VSS_ERR_INVALID_ARGUMENT);
    free(big);
    CHECK("sign a PSID not permitted",
          vss_sign(entity, 999, payload, 3, &out) == VSS_ERR_PSID_NOT_PERMITTED);
    CHECK("sign failed: out empty", out.data == NULL && out.len == 0);
}

static void follows_id_changes(const vss_entity *entity, struct events *events) {
    CHECK("subscribe NULL callback", vss_id_change_subscribe(entity, NULL, events) == VSS_ERR_NULL);
    CHECK("subscribe", vss_id_change_subscribe(entity, on_id_change, events) == VSS_OK);
    vss_hashed_id8 new_id;
    memset(&new_id, 0, sizeof new_id);
    CHECK("trigger id change", vss_trigger_id_change(entity, &new_id) == VSS_OK);
    CHECK("id change: PREPARE then COMMIT",
          events->count == 2 && events->prepares == 1 && events->commits == 1);
    CHECK("id change: both name the new pseudonym",
          same_id(&events->prepare.to, &new_id) && same_id(&events->commit.to, &new_id));
    CHECK("id change: from the old one",
          events->prepare.has_from && events->commit.has_from &&
              same_id(&events->prepare.from, &events->commit.from) &&
              !same_id(&events->commit.from, &new_id));

    CHECK("lock id change", vss_lock_id_change(entity, 60) == VSS_OK);
    CHECK("trigger while locked",
          vss_trigger_id_change(entity, NULL) == VSS_ERR_CHANGE_BLOCKED);
    CHECK("locked: no event", events->count == 2);
    CHECK("unlock id change", vss_lock_id_change(entity, 0) == VSS_OK);
    CHECK("trigger after unlock", vss_trigger_id_change(entity, NULL) == VSS_OK);
    CHECK("unlocked: PREPARE and COMMIT again", events->prepares == 2 && events->commits == 2);
}

struct signer {
    const vss_entity *entity;
    int index;
    int signed_ok;
};

static void *sign_many(void *arg) {
    struct signer *signer = arg;
    char text[32];
    for (int i = 0; i < SIGNS_PER_THREAD; i++) {
        snprintf(text, sizeof text, "thread %d message %d", signer->index, i);
        vss_buffer out = sign_text(signer->entity, text);
        if (out.data != NULL) {
            signer->signed_ok++;
        }
        vss_buffer_free(&out);
    }
    return NULL;
}

static void signs_from_threads(const vss_entity *entity, struct events *events) {
    int before = events_count(events);
    pthread_t threads[THREADS];
    struct signer signers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        signers[t] = (struct signer){entity, t, 0};
        if (pthread_create(&threads[t], NULL, sign_many, &signers[t]) != 0) {
            abort();
        }
    }
    int total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        total += signers[t].signed_ok;
    }
    printf("threads: %d x %d signed: %d\n", THREADS, SIGNS_PER_THREAD, total);
    CHECK("threads: every message signed", total == THREADS * SIGNS_PER_THREAD);
    pthread_mutex_lock(&events->lock);
    int changes = events->count - before;
    int paired = events->prepares == events->commits && events->aborts == 0;
    pthread_mutex_unlock(&events->lock);
    printf("threads: %d id-change events\n", changes);
    CHECK("threads: the pseudonym changed with PREPARE and COMMIT", changes >= 2 && paired);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIG.toml\n", argv[0]);
        return 2;
    }
    opening_fails_clearly(argv[1]);
    vss_entity *entity = NULL;
    if (vss_entity_open(argv[1], &entity) != VSS_OK) {
        printf("FAIL open %s: %s\n", argv[1], vss_last_error());
        return 1;
    }
    CHECK("open", entity != NULL && strcmp(vss_last_error(), "") == 0);
    struct events events = {.magic = EVENTS_MAGIC, .count = 0};
    pthread_mutex_init(&events.lock, NULL);

    signs_and_verifies(entity);
    verifies_a_batch(entity);
    signing_fails_clearly(entity);
    follows_id_changes(entity, &events);
    signs_from_threads(entity, &events);

    vss_entity_close(entity);
    vss_entity_close(NULL);
    pthread_mutex_destroy(&events.lock);
    printf("test_vss: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
