// Package gitx is the one way the product runs git. A repository's own
// configuration and attributes are untrusted input (a client can write
// .git/config through the coding tools, a pull can bring .gitattributes),
// so every git process is hardened without first reading that
// configuration.
package gitx
