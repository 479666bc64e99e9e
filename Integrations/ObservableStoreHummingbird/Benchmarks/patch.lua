-- wrk script: PATCH /api/nodes/:id with a JSON body moving the node (Benchmarks/run.sh).
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
local counter = 0
request = function()
    counter = counter + 1
    local body = string.format('{"x":%d,"y":%d}', counter % 800, counter % 600)
    return wrk.format(nil, nil, nil, body)
end
