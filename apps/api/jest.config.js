// Both cores: once the other packages' tests are done, the API suite (the longest) would leave one idle.
module.exports = { ...require('../../jest.preset.js'), maxWorkers: 2 };
