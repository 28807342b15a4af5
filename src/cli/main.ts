/** PLACEHOLDER (issue 8): the tapshot CLI. */
console.log("tapshot CLI: not implemented yet");
