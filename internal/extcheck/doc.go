// Package extcheck holds only tests: checks of every Sudocode MCP server
// with clients nobody here wrote. The MCP Inspector's CLI lists and calls
// the tools of each server over stdio and over Streamable HTTP, and the
// official conformance suite runs its server scenarios against each HTTP
// endpoint. Both come from the npm registry at pinned versions, with the
// Node.js they need (npm's node-<os>-<arch> package), installed once into a
// cache directory that outlives a test run (internal/npmtool).
//
// The scenarios that do not apply to a server are listed, each with its
// reason, in testdata/conformance-skips.txt; any other failure fails the
// test, and so does a listed scenario that passes.
package extcheck
