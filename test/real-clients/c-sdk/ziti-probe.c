// ziti-probe: drives the OpenZiti C SDK against a controller and prints what happened.
//
//   ziti-probe enroll <jwt-file> <identity-out.json>
//   ziti-probe run <identity.json> [--dial <service> | --bind <service>] [--timeout <seconds>]
//                  [--wait-service <name>] [--refresh <seconds>] [--config-type <type>]
//                  [--extend-days <days>] [--save <identity-out.json>] [--stay <seconds>]
//                  [--mfa-enroll <secret-out-file> | --mfa-secret <secret-file>]
//
//   --wait-service  keep polling (every --refresh seconds, default 60) until the service is listed
//   --mfa-enroll    enroll TOTP MFA after login (ziti_mfa_enroll, ziti_mfa_verify) and write the
//                   secret to the file
//   --mfa-secret    answer the SDK's TOTP prompt (ziti_mfa_auth) with codes from that secret
//   --stay          stay logged in that long after the list (API session refreshes, polls)
//   --config-type   print each service's config of that type ("PROBE config ...")
//   --extend-days   renew the identity certificate when it expires within that many days, and
//                   wait for the renewed certificate ("PROBE cert extended ..."); --save writes
//                   the identity with it
//
// Every result line starts with "PROBE " so a test can read it between the SDK's own log
// lines (ZITI_LOG=<0..6> sets the SDK log level, default 4 = DEBUG). Exit status 0 means the
// requested steps succeeded: enrollment wrote the identity; run logged in and received the
// service list (and, with --dial, the dial got as far as asking edge routers to connect).

#include <ziti/ziti.h>
#include <ziti/ziti_log.h>
#include <ziti/enroll.h>

#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <ctype.h>
#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_timer_t deadline;
static int exit_code = 1;
static const char *dial_service;
static const char *bind_service;
static bool dial_started;
static int services_seen;
static bool finished;
static const char *wait_service;
static const char *config_type;
static const char *save_file;
static bool wait_extend;
static bool services_listed, extended;
static int stay_seconds;
static const char *mfa_enroll_file;
static char mfa_secret[128];
static bool mfa_pending;
static uv_timer_t stay_timer;

static void finish(ziti_context ztx, int code) {
    if (finished) return;
    finished = true;
    exit_code = code;
    printf("PROBE done code=%d\n", code);
    fflush(stdout);
    if (ztx) ziti_shutdown(ztx);
    uv_timer_stop(&deadline);
    uv_close((uv_handle_t *) &deadline, NULL);
}

static void on_deadline(uv_timer_t *t) {
    ziti_context ztx = t->data;
    printf("PROBE timeout\n");
    finish(ztx, 3);
}

// ---- enroll ----

static const char *enroll_out;

static void on_enroll(const ziti_config *cfg, int status, const char *err, void *ctx) {
    (void) ctx;
    if (status != ZITI_OK) {
        printf("PROBE enroll error status=%d (%s) message=%s\n", status, ziti_errorstr(status),
               err ? err : "");
        finish(NULL, 1);
        return;
    }
    size_t len;
    char *json = ziti_config_to_json(cfg, 0, &len);
    FILE *f = fopen(enroll_out, "wb");
    if (f == NULL || fwrite(json, 1, len, f) != len) {
        printf("PROBE enroll error writing %s\n", enroll_out);
        finish(NULL, 1);
    } else {
        printf("PROBE enroll ok controller=%s file=%s\n", cfg->controller_url, enroll_out);
        finish(NULL, 0);
    }
    if (f) fclose(f);
    free(json);
}

static int do_enroll(const char *jwt_file, const char *out) {
    static char jwt[16 * 1024];
    FILE *f = fopen(jwt_file, "r");
    if (f == NULL) { perror(jwt_file); return 2; }
    size_t n = fread(jwt, 1, sizeof(jwt) - 1, f);
    fclose(f);
    jwt[n] = 0;
    while (n > 0 && (jwt[n - 1] == '\n' || jwt[n - 1] == '\r' || jwt[n - 1] == ' ')) jwt[--n] = 0;

    enroll_out = out;
    ziti_enroll_opts opts = {0};
    opts.token = jwt;
    int rc = ziti_enroll(&opts, loop, on_enroll, NULL);
    if (rc != ZITI_OK) {
        printf("PROBE enroll error rc=%d (%s)\n", rc, ziti_errorstr(rc));
        return 1;
    }
    return -1; // run the loop
}

// ---- run ----

// RFC 6238 TOTP (SHA-1, 30 s, 6 digits) from a base32 secret, as authenticator apps compute it.
static void totp(const char *secret, char out[7]) {
    uint8_t key[64];
    size_t klen = 0;
    unsigned int buf = 0, bits = 0;
    for (const char *p = secret; *p && klen < sizeof(key); p++) {
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        const char *at = strchr(alphabet, toupper((unsigned char) *p));
        if (*p == '=' || at == NULL) continue;
        buf = (buf << 5) | (unsigned int) (at - alphabet);
        bits += 5;
        if (bits >= 8) { key[klen++] = (uint8_t) (buf >> (bits - 8)); bits -= 8; }
    }
    uint64_t counter = (uint64_t) time(NULL) / 30;
    uint8_t msg[8];
    for (int i = 7; i >= 0; i--) { msg[i] = (uint8_t) (counter & 0xff); counter >>= 8; }
    uint8_t mac[EVP_MAX_MD_SIZE];
    unsigned int mlen = 0;
    HMAC(EVP_sha1(), key, (int) klen, msg, sizeof(msg), mac, &mlen);
    int off = mac[mlen - 1] & 0x0f;
    uint32_t bin = ((uint32_t) (mac[off] & 0x7f) << 24) | ((uint32_t) mac[off + 1] << 16) |
                   ((uint32_t) mac[off + 2] << 8) | mac[off + 3];
    snprintf(out, 7, "%06u", bin % 1000000);
}

static void maybe_next(ziti_context ztx);

static void on_mfa_verify(ziti_context ztx, int status, void *ctx) {
    (void) ctx;
    printf("PROBE mfa verify status=%d (%s)\n", status, ziti_errorstr(status));
    if (status != ZITI_OK) { finish(ztx, 5); return; }
    FILE *f = fopen(mfa_enroll_file, "w");
    if (f) { fputs(mfa_secret, f); fclose(f); }
    mfa_pending = false;
    maybe_next(ztx);
}

static void on_mfa_enroll(ziti_context ztx, int status, ziti_mfa_enrollment *e, void *ctx) {
    (void) ctx;
    printf("PROBE mfa enroll status=%d (%s) url=%s\n", status, ziti_errorstr(status),
           e && e->provisioning_url ? e->provisioning_url : "");
    const char *at = e && e->provisioning_url ? strstr(e->provisioning_url, "secret=") : NULL;
    if (status != ZITI_OK || at == NULL) { finish(ztx, 5); return; }
    at += strlen("secret=");
    size_t n = strcspn(at, "&");
    if (n >= sizeof(mfa_secret)) n = sizeof(mfa_secret) - 1;
    memcpy(mfa_secret, at, n);
    mfa_secret[n] = 0;
    char code[7];
    totp(mfa_secret, code);
    ziti_mfa_verify(ztx, code, on_mfa_verify, NULL);
}

static void on_mfa_auth(ziti_context ztx, int status, void *ctx) {
    (void) ctx;
    printf("PROBE mfa auth status=%d (%s)\n", status, ziti_errorstr(status));
    if (status != ZITI_OK) finish(ztx, 5);
}

static void on_close(ziti_connection conn) { (void) conn; }

static ssize_t on_data(ziti_connection conn, const uint8_t *data, ssize_t len) {
    (void) conn; (void) data;
    printf("PROBE dial data len=%zd\n", len);
    return len < 0 ? 0 : len;
}

static void on_dial(ziti_connection conn, int status) {
    ziti_context ztx = ziti_conn_context(conn);
    printf("PROBE dial result status=%d (%s)\n", status, ziti_errorstr(status));
    ziti_close(conn, on_close);
    // A session was granted when the SDK got as far as edge routers; without a reachable
    // router the dial ends in a connection error, which is still past the controller.
    finish(ztx, status == ZITI_OK || status == ZITI_GATEWAY_UNAVAILABLE ||
                status == ZITI_CONNABORT || status == ZITI_TIMEOUT ? 0 : 4);
}

static void on_client(ziti_connection srv, ziti_connection client, int status, const ziti_client_ctx *ctx) {
    (void) srv; (void) ctx;
    printf("PROBE bind client status=%d\n", status);
    if (client) ziti_close(client, on_close);
}

static void on_listen(ziti_connection srv, int status) {
    ziti_context ztx = ziti_conn_context(srv);
    // the SDK reports OK once the controller granted the Bind session and it has the routers
    printf("PROBE bind result status=%d (%s)\n", status, ziti_errorstr(status));
    ziti_close(srv, on_close);
    finish(ztx, status == ZITI_OK ? 0 : 4);
}

static void start_bind(ziti_context ztx) {
    if (dial_started) return;
    dial_started = true;
    ziti_connection conn;
    ziti_conn_init(ztx, &conn, NULL);
    printf("PROBE bind start service=%s\n", bind_service);
    int rc = ziti_listen(conn, bind_service, on_listen, on_client);
    if (rc != ZITI_OK) {
        printf("PROBE bind result status=%d (%s)\n", rc, ziti_errorstr(rc));
        finish(ztx, 4);
    }
}

static void start_dial(ziti_context ztx) {
    if (dial_started) return;
    dial_started = true;
    ziti_connection conn;
    ziti_conn_init(ztx, &conn, NULL);
    printf("PROBE dial start service=%s\n", dial_service);
    // nothing may be listening at the routers: don't wait the default 10 s for them
    ziti_dial_opts opts = {.connect_timeout_seconds = 3};
    int rc = ziti_dial_with_options(conn, dial_service, &opts, on_dial, on_data);
    if (rc != ZITI_OK) {
        printf("PROBE dial result status=%d (%s)\n", rc, ziti_errorstr(rc));
        finish(ztx, 4);
    }
}

static void on_stay_done(uv_timer_t *t) {
    uv_close((uv_handle_t *) t, NULL);
    finish(t->data, 0);
}

// after the service list (and any awaited service or certificate renewal): dial or finish
static void maybe_next(ziti_context ztx) {
    if (!services_listed || mfa_pending || wait_service || (wait_extend && !extended)) return;
    if (dial_service) start_dial(ztx);
    else if (bind_service) start_bind(ztx);
    else if (stay_seconds > 0) {
        if (!uv_is_active((uv_handle_t *) &stay_timer)) {
            printf("PROBE staying seconds=%d\n", stay_seconds);
            stay_timer.data = ztx;
            uv_timer_start(&stay_timer, on_stay_done, (uint64_t) stay_seconds * 1000, 0);
        }
    } else finish(ztx, 0);
}

static void on_event(ziti_context ztx, const ziti_event_t *ev) {
    if (finished) return; // shutting down: the SDK reports every service as removed
    switch (ev->type) {
        case ZitiContextEvent:
            printf("PROBE context status=%d (%s) err=%s\n", ev->ctx.ctrl_status,
                   ziti_errorstr(ev->ctx.ctrl_status), ev->ctx.err ? ev->ctx.err : "");
            if (ev->ctx.ctrl_status == ZITI_OK) {
                const ziti_identity *id = ziti_get_identity(ztx);
                const ziti_version *v = ziti_get_controller_version(ztx);
                printf("PROBE login ok identity=%s controller_version=%s\n",
                       id && id->name ? id->name : "?", v && v->version ? v->version : "?");
                if (mfa_enroll_file && !mfa_pending && mfa_secret[0] == 0) {
                    mfa_pending = true;
                    ziti_mfa_enroll(ztx, on_mfa_enroll, NULL);
                }
            }
            break;
        case ZitiAuthEvent:
            printf("PROBE auth action=%d type=%s detail=%s error=%s\n", ev->auth.action,
                   ev->auth.type ? ev->auth.type : "", ev->auth.detail ? ev->auth.detail : "",
                   ev->auth.error ? ev->auth.error : "");
            // An identity with verified TOTP should be prompted for a code (ziti_auth_prompt_totp);
            // the SDK reports ziti_auth_enroll_totp when the auth query lacks isTotpEnrolled. Both
            // are answered with a code when a secret is given, so the rest of the login is checked.
            if (ev->auth.action == ziti_auth_prompt_totp ||
                (ev->auth.action == ziti_auth_enroll_totp && mfa_secret[0] != 0)) {
                if (mfa_secret[0] == 0) { printf("PROBE mfa prompt without --mfa-secret\n"); finish(ztx, 5); break; }
                char code[7];
                totp(mfa_secret, code);
                ziti_mfa_auth(ztx, code, on_mfa_auth, NULL);
            }
            break;
        case ZitiRouterEvent:
            printf("PROBE router status=%d name=%s address=%s\n", ev->router.status,
                   ev->router.name ? ev->router.name : "", ev->router.address ? ev->router.address : "");
            break;
        case ZitiServiceEvent: {
            ziti_service **s;
            for (s = ev->service.added; s && *s; s++) {
                services_seen++;
                printf("PROBE service added name=%s id=%s dial=%d bind=%d\n", (*s)->name, (*s)->id,
                       ((*s)->perm_flags & ZITI_CAN_DIAL) != 0, ((*s)->perm_flags & ZITI_CAN_BIND) != 0);
                if (config_type) {
                    const char *cfg = ziti_service_get_raw_config(*s, config_type);
                    printf("PROBE config service=%s type=%s json=%s\n", (*s)->name, config_type,
                           cfg ? cfg : "null");
                }
                if (wait_service && strcmp((*s)->name, wait_service) == 0) wait_service = NULL;
            }
            for (s = ev->service.changed; s && *s; s++) {
                printf("PROBE service changed name=%s id=%s\n", (*s)->name, (*s)->id);
                if (config_type) {
                    const char *cfg = ziti_service_get_raw_config(*s, config_type);
                    printf("PROBE config service=%s type=%s json=%s\n", (*s)->name, config_type,
                           cfg ? cfg : "null");
                }
            }
            for (s = ev->service.removed; s && *s; s++)
                printf("PROBE service removed name=%s id=%s\n", (*s)->name, (*s)->id);
            printf("PROBE services total=%d\n", services_seen);
            services_listed = true;
            maybe_next(ztx);
            break;
        }
        case ZitiConfigEvent:
            if (ev->cfg.config && ev->cfg.config->id.cert) {
                printf("PROBE cert extended identity=%s\n",
                       ev->cfg.identity_name ? ev->cfg.identity_name : "");
                if (save_file) {
                    size_t len;
                    char *json = ziti_config_to_json(ev->cfg.config, 0, &len);
                    FILE *f = fopen(save_file, "wb");
                    if (f) { fwrite(json, 1, len, f); fclose(f); }
                    free(json);
                }
                extended = true;
                maybe_next(ztx);
            }
            break;
        default:
            break;
    }
    fflush(stdout);
}

static int do_run(const char *identity, int argc, char **argv) {
    int timeout = 30, refresh = 60, extend_days = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--dial") == 0 && i + 1 < argc) dial_service = argv[++i];
        else if (strcmp(argv[i], "--bind") == 0 && i + 1 < argc) bind_service = argv[++i];
        else if (strcmp(argv[i], "--wait-service") == 0 && i + 1 < argc) wait_service = argv[++i];
        else if (strcmp(argv[i], "--refresh") == 0 && i + 1 < argc) refresh = atoi(argv[++i]);
        else if (strcmp(argv[i], "--config-type") == 0 && i + 1 < argc) config_type = argv[++i];
        else if (strcmp(argv[i], "--extend-days") == 0 && i + 1 < argc) extend_days = atoi(argv[++i]);
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc) save_file = argv[++i];
        else if (strcmp(argv[i], "--stay") == 0 && i + 1 < argc) stay_seconds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--mfa-enroll") == 0 && i + 1 < argc) mfa_enroll_file = argv[++i];
        else if (strcmp(argv[i], "--mfa-secret") == 0 && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "r");
            if (f == NULL || fgets(mfa_secret, sizeof(mfa_secret), f) == NULL) { perror(argv[i]); return 2; }
            fclose(f);
            mfa_secret[strcspn(mfa_secret, "\r\n")] = 0;
        }
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) timeout = atoi(argv[++i]);
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
    }
    ziti_config cfg = {0};
    int rc = ziti_load_config(&cfg, identity);
    if (rc != ZITI_OK) { printf("PROBE load error rc=%d (%s)\n", rc, ziti_errorstr(rc)); return 1; }
    ziti_context ztx;
    rc = ziti_context_init(&ztx, &cfg);
    if (rc != ZITI_OK) { printf("PROBE init error rc=%d (%s)\n", rc, ziti_errorstr(rc)); return 1; }
    uv_timer_init(loop, &stay_timer);
    ziti_options opts = {0};
    static const char *all_configs[] = {"all", NULL};
    opts.events = ZitiContextEvent | ZitiServiceEvent | ZitiRouterEvent | ZitiAuthEvent | ZitiConfigEvent;
    opts.event_cb = on_event;
    opts.refresh_interval = refresh;
    opts.config_types = all_configs;
    opts.cert_extension_window = extend_days;
    wait_extend = extend_days > 0;
    ziti_context_set_options(ztx, &opts);
    deadline.data = ztx;
    uv_timer_start(&deadline, on_deadline, (uint64_t) timeout * 1000, 0);
    rc = ziti_context_run(ztx, loop);
    if (rc != ZITI_OK) { printf("PROBE run error rc=%d (%s)\n", rc, ziti_errorstr(rc)); return 1; }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s enroll <jwt-file> <identity-out.json>\n"
                        "       %s run <identity.json> [--dial <service>] [--timeout <seconds>]\n",
                argv[0], argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    loop = uv_default_loop();
    const char *lvl = getenv("ZITI_LOG");
    ziti_log_init(loop, lvl ? atoi(lvl) : DEBUG, NULL);
    uv_timer_init(loop, &deadline);
    uv_unref((uv_handle_t *) &deadline);

    const ziti_version *v = ziti_get_version();
    printf("PROBE sdk version=%s revision=%s\n", v->version, v->revision);

    int rc;
    if (strcmp(argv[1], "enroll") == 0 && argc == 4) {
        uv_timer_start(&deadline, on_deadline, 30000, 0);
        rc = do_enroll(argv[2], argv[3]);
    } else if (strcmp(argv[1], "run") == 0) {
        rc = do_run(argv[2], argc - 3, argv + 3);
    } else {
        fprintf(stderr, "unknown command %s\n", argv[1]);
        return 2;
    }
    if (rc >= 0) return rc;
    uv_run(loop, UV_RUN_DEFAULT);
    return exit_code;
}
