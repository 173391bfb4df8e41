package workspace

// ListedMax is how many items of a list owt names in one line of output
// before it says how many more there are (text.Some).
const ListedMax = 5
