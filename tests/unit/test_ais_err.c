/* Unit tests of va_ais_err: AIS error replies (ais-rest-api.md §0.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "va_ais_err.h"

static void parses_error_json(void **state)
{
    (void)state;
    /* the example of docs/http_api.md, with the encoder's trailing newline */
    const char *body = "{\"message\":\"p[lgGp8080] primary is not ready yet\",\"method\":\"GET\","
                       "\"url_path\":\"//v1/health\",\"remote_addr\":\"127.0.0.1:42720\","
                       "\"caller\":\"\",\"node\":\"p[lgGp8080]\",\"status\":503}\n";
    va_ais_err_t e;
    assert_int_equal(va_ais_err_parse(503, body, strlen(body), &e), VC_OK);
    assert_int_equal(e.status, 503);
    assert_string_equal(e.code, "NotReady");
    assert_string_equal(e.message, "p[lgGp8080] primary is not ready yet");
    assert_string_equal(e.node, "p[lgGp8080]");
    /* a tcode wins over the status name */
    const char *nf = "{\"tcode\":\"ErrRemoteBckNotFound\",\"message\":\"aws bucket \\\"s3://x\\\" "
                     "does not exist\",\"status\":404}";
    assert_int_equal(va_ais_err_parse(404, nf, strlen(nf), &e), VC_OK);
    assert_string_equal(e.code, "ErrRemoteBckNotFound");
    assert_string_equal(e.message, "aws bucket \"s3://x\" does not exist");
}

static void handles_other_replies(void **state)
{
    (void)state;
    va_ais_err_t e;
    /* no body at all */
    assert_int_equal(va_ais_err_parse(404, NULL, 0, &e), VC_ERR_PROTO);
    assert_string_equal(e.code, "NotFound");
    assert_non_null(strstr(e.message, "404"));
    /* HTML from a proxy in between: shown made printable, one line */
    const char *html = "<html>\r\n<body>Bad\x01gateway\xff</body></html>";
    assert_int_equal(va_ais_err_parse(502, html, strlen(html), &e), VC_ERR_PROTO);
    assert_string_equal(e.code, "HTTP502");
    assert_null(strchr(e.message, '\n'));
    assert_null(strchr(e.message, '\x01'));
    assert_non_null(strstr(e.message, "Bad?gateway?"));
    /* a JSON object without a message */
    const char *other = "{\"error\":\"x\"}";
    assert_int_equal(va_ais_err_parse(400, other, strlen(other), &e), VC_ERR_PROTO);
    assert_string_equal(e.code, "BadRequest");
    assert_non_null(strstr(e.message, "error"));
    /* a wrong-typed tcode is ignored, the message kept */
    const char *wt = "{\"tcode\":5,\"message\":\"m\"}";
    assert_int_equal(va_ais_err_parse(409, wt, strlen(wt), &e), VC_OK);
    assert_string_equal(e.code, "Conflict");
    assert_string_equal(e.message, "m");
}

static void salvages_cut_header(void **state)
{
    (void)state;
    /* a Hdr-Error value cut short by a header size cap */
    const char *cut = "{\"tcode\":\"ErrObjNotFound\",\"message\":\"t[abc]: s3://b/some/long/na";
    va_ais_err_t e;
    assert_int_equal(va_ais_err_parse(404, cut, strlen(cut), &e), VC_ERR_PROTO);
    assert_string_equal(e.message, "t[abc]: s3://b/some/long/na...");
    assert_string_equal(e.code, "NotFound");
}

static void long_messages_are_cut_safely(void **state)
{
    (void)state;
    char body[4096];
    int n = snprintf(body, sizeof body, "{\"message\":\"");
    memset(body + n, 'x', 3000);
    strcpy(body + n + 3000, "\"}");
    va_ais_err_t e;
    assert_int_equal(va_ais_err_parse(500, body, strlen(body), &e), VC_OK);
    assert_int_equal(strlen(e.message), sizeof e.message - 1);
    char buf[16];
    assert_string_equal(va_ais_status_code(429, buf, sizeof buf), "TooManyRequests");
    assert_string_equal(va_ais_status_code(418, buf, sizeof buf), "HTTP418");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_error_json),
        cmocka_unit_test(handles_other_replies),
        cmocka_unit_test(salvages_cut_header),
        cmocka_unit_test(long_messages_are_cut_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
