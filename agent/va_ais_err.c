/* va_ais_err: parsing AIS error replies. */
#include "va_ais_err.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

const char *va_ais_status_code(long status, char *buf, size_t buflen)
{
    switch (status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 501: return "NotImplemented";
    case 503: return "NotReady";
    case 507: return "InsufficientStorage";
    default:
        snprintf(buf, buflen, "HTTP%ld", status);
        return buf;
    }
}

/* Copies text into out, replacing control characters and non-ASCII bytes so
 * the message is safe on a terminal and in a log line. */
static void printable(char *out, size_t outlen, const char *in, size_t n)
{
    size_t o = 0;
    if (!outlen)
        return;
    for (size_t i = 0; i < n && o + 1 < outlen; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
        out[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

/* The "message" string of a JSON object that was cut short: the text after
 * "message":" up to the closing quote or the end, escapes kept as written. */
static int salvage_message(const char *text, size_t len, char *out, size_t outlen)
{
    static const char key[] = "\"message\"";
    const char *end = text + len;
    const char *p = memmem(text, len, key, sizeof key - 1);
    if (!p)
        return 0;
    p += sizeof key - 1;
    while (p < end && (*p == ' ' || *p == ':'))
        p++;
    if (p >= end || *p != '"')
        return 0;
    const char *s = ++p;
    while (p < end && *p != '"') {
        if (*p == '\\' && p + 1 < end)
            p++;
        p++;
    }
    printable(out, outlen, s, (size_t)(p - s));
    if (p >= end && strlen(out) + 4 < outlen)
        strcat(out, "...");
    return 1;
}

vc_status_t va_ais_err_parse(long status, const char *text, size_t len, va_ais_err_t *e)
{
    char buf[16];
    memset(e, 0, sizeof *e);
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", va_ais_status_code(status, buf, sizeof buf));
    if (!text || !len) {
        snprintf(e->message, sizeof e->message, "HTTP %ld with no error text", status);
        return VC_ERR_PROTO;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &jerr);
    if (!root || !json_is_object(root)) {
        json_decref(root);
        if (!salvage_message(text, len, e->message, sizeof e->message))
            printable(e->message, sizeof e->message, text, len);
        return VC_ERR_PROTO;
    }
    json_t *msg = json_object_get(root, "message");
    json_t *tcode = json_object_get(root, "tcode");
    json_t *node = json_object_get(root, "node");
    vc_status_t rc = VC_OK;
    if (json_is_string(msg)) {
        printable(e->message, sizeof e->message, json_string_value(msg), json_string_length(msg));
    } else {
        /* a JSON object, but not AIS's error shape */
        printable(e->message, sizeof e->message, text, len);
        rc = VC_ERR_PROTO;
    }
    if (json_is_string(tcode)) {
        /* a blank tcode keeps the status's name: a sample's code is never empty */
        char tc[sizeof e->code];
        printable(tc, sizeof tc, json_string_value(tcode), json_string_length(tcode));
        if (tc[0])
            memcpy(e->code, tc, sizeof tc);
    }
    if (json_is_string(node))
        printable(e->node, sizeof e->node, json_string_value(node), json_string_length(node));
    json_decref(root);
    return rc;
}
