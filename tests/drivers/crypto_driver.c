/* OpenSSL libcrypto: SHA-256 of a message and AES-256-CBC of the same message through
 * EVP, printed in hex. Debian's arm64 libcrypto.a is built with gcc's default outline
 * atomics (reference counts), which only libgcc.a defines. */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

static void hex(const char *what, const unsigned char *p, int n)
{
    printf("%s ", what);
    for (int i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("\n");
}

int main(void)
{
    const char *msg = "objrt links Debian's own libcrypto.a";
    unsigned char md[EVP_MAX_MD_SIZE], key[32], iv[16], out[128];
    unsigned int mdlen = 0;
    int n = 0, m = 0;
    EVP_Digest(msg, strlen(msg), md, &mdlen, EVP_sha256(), NULL);
    hex("sha256", md, (int)mdlen);
    for (int i = 0; i < 32; i++)
        key[i] = (unsigned char)i;
    memset(iv, 7, sizeof iv);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (!c || !EVP_EncryptInit_ex(c, EVP_aes_256_cbc(), NULL, key, iv) ||
        !EVP_EncryptUpdate(c, out, &n, (const unsigned char *)msg, (int)strlen(msg)) ||
        !EVP_EncryptFinal_ex(c, out + n, &m))
        return 1;
    hex("aes256cbc", out, n + m);
    EVP_CIPHER_CTX_free(c);
    return 0;
}
